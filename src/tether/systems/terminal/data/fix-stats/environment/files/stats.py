"""Small descriptive statistics over lists of numbers."""

from collections import Counter


def mean(xs):
    return sum(xs) / len(xs)


def median(xs):
    xs.sort()
    n = len(xs)
    return xs[n // 2]


def mode(xs):
    counts = Counter(xs)
    return counts.most_common(1)[0][0]


def variance(xs):
    m = mean(xs)
    return sum((x - m) ** 2 for x in xs) / (len(xs) - 1)
