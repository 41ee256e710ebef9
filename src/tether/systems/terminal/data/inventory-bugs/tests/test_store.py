import unittest

from inventory import Store


class StoreTest(unittest.TestCase):
    def test_add_and_quantity(self):
        s = Store()
        s.add("apple", 3, 0.5)
        s.add("apple", 2, 0.5)
        self.assertEqual(s.quantity("apple"), 5)

    def test_unknown_quantity_is_zero(self):
        self.assertEqual(Store().quantity("pear"), 0)

    def test_remove_too_many(self):
        s = Store()
        s.add("apple", 1, 0.5)
        with self.assertRaises(ValueError):
            s.remove("apple", 2)
        self.assertEqual(s.quantity("apple"), 1)

    def test_total_value(self):
        s = Store()
        s.add("a", 3, 0.1)
        self.assertEqual(s.total_value(), 0.3)


if __name__ == "__main__":
    unittest.main()
