"""Hidden contract tests for /app/stats.py."""

import sys
import unittest

sys.path.insert(0, "/app")
from stats import mean, median, mode, variance  # noqa: E402


class Hidden(unittest.TestCase):
    def test_mean(self):
        self.assertEqual(mean([2, 4]), 3.0)
        self.assertAlmostEqual(mean([0.5, 0.25]), 0.375)

    def test_median(self):
        self.assertEqual(median([5]), 5)
        self.assertEqual(median([9, 1, 5]), 5)
        self.assertEqual(median([1, 2, 3, 10]), 2.5)
        self.assertEqual(median([-3, -1]), -2.0)

    def test_median_keeps_input(self):
        xs = [3, 1, 2]
        median(xs)
        self.assertEqual(xs, [3, 1, 2])

    def test_mode_ties_pick_smallest(self):
        self.assertEqual(mode([3, 3, 1, 1, 2]), 1)
        self.assertEqual(mode([5, 4, 4, 5]), 4)
        self.assertEqual(mode([7]), 7)

    def test_population_variance(self):
        self.assertAlmostEqual(variance([2, 4, 4, 4, 5, 5, 7, 9]), 4.0)
        self.assertEqual(variance([3]), 0.0)

    def test_empty_raises_value_error(self):
        for fn in (mean, median, mode, variance):
            with self.assertRaises(ValueError, msg=fn.__name__):
                fn([])


if __name__ == "__main__":
    unittest.main()
