"""Writes the report: a small table of squares and cubes, with a checksum line."""

rows = [f"{n:3d} {n * n:6d} {n ** 3:9d}" for n in range(1, 21)]
print("\n".join(rows))
print(f"checksum {sum(n ** 3 for n in range(1, 21)) % 9973}")
