import sys


def count_pairs(values, target):
    count = 0
    for i in range(len(values)):
        for j in range(i + 1, len(values)):
            if values[i] + values[j] == target:
                count += 1
    return count


def main(path):
    with open(path) as fh:
        target = int(fh.readline())
        values = [int(line) for line in fh if line.strip()]
    print(count_pairs(values, target))


if __name__ == "__main__":
    main(sys.argv[1])
