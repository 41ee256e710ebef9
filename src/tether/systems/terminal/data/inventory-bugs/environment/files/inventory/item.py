from dataclasses import dataclass


@dataclass
class Item:
    sku: str
    qty: int
    unit_price: float

    def value(self):
        return self.qty * self.unit_price
