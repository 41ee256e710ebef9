from inventory.item import Item


class Store:
    def __init__(self):
        self.items = {}

    def add(self, sku, qty, unit_price):
        if sku in self.items:
            self.items[sku].qty += qty
        else:
            self.items[sku] = Item(sku, qty, unit_price)

    def remove(self, sku, qty):
        item = self.items[sku]
        item.qty -= qty
        if item.qty < 0:
            raise ValueError(f"not enough {sku}")

    def quantity(self, sku):
        return self.items[sku].qty

    def total_value(self):
        return round(sum(i.value() for i in self.items.values()), 2)

    def low_stock(self, threshold):
        return [sku for sku, i in self.items.items() if i.qty <= threshold]
