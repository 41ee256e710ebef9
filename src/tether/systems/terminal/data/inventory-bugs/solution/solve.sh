#!/bin/bash
cat > /app/inventory/store.py <<'PY'
from inventory.item import Item


class Store:
    def __init__(self):
        self.items = {}

    def add(self, sku, qty, unit_price):
        if sku in self.items:
            self.items[sku].qty += qty
            self.items[sku].unit_price = unit_price
        else:
            self.items[sku] = Item(sku, qty, unit_price)

    def remove(self, sku, qty):
        if self.quantity(sku) < qty:
            raise ValueError(f"not enough {sku}")
        item = self.items[sku]
        item.qty -= qty
        if item.qty == 0:
            del self.items[sku]

    def quantity(self, sku):
        item = self.items.get(sku)
        return item.qty if item else 0

    def total_value(self):
        return round(sum(i.value() for i in self.items.values()), 2)

    def low_stock(self, threshold):
        return sorted(sku for sku, i in self.items.items() if i.qty < threshold)
PY
