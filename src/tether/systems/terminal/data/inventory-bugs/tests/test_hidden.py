"""Hidden contract tests for /app/inventory."""

import sys
import unittest

sys.path.insert(0, "/app")
from inventory import Store  # noqa: E402


class Hidden(unittest.TestCase):
    def test_add_updates_price(self):
        s = Store()
        s.add("x", 2, 1.0)
        s.add("x", 1, 2.5)
        self.assertEqual(s.quantity("x"), 3)
        self.assertEqual(s.total_value(), 7.5)

    def test_remove_to_zero_disappears(self):
        s = Store()
        s.add("x", 2, 1.0)
        s.remove("x", 2)
        self.assertEqual(s.quantity("x"), 0)
        self.assertEqual(s.low_stock(5), [])

    def test_remove_too_many_changes_nothing(self):
        s = Store()
        s.add("x", 2, 1.0)
        with self.assertRaises(ValueError):
            s.remove("x", 3)
        self.assertEqual(s.quantity("x"), 2)

    def test_remove_unknown_raises_value_error(self):
        with self.assertRaises(ValueError):
            Store().remove("ghost", 1)

    def test_low_stock_strict_and_sorted(self):
        s = Store()
        for sku, q in [("pear", 1), ("fig", 5), ("apple", 2), ("kiwi", 3)]:
            s.add(sku, q, 1.0)
        self.assertEqual(s.low_stock(3), ["apple", "pear"])

    def test_total_value_rounding(self):
        s = Store()
        s.add("a", 3, 0.1)
        s.add("b", 7, 0.35)
        self.assertEqual(s.total_value(), 2.75)
        self.assertEqual(Store().total_value(), 0)


if __name__ == "__main__":
    unittest.main()
