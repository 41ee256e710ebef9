#!/bin/bash
cat > /app/wordcount.sh <<'SH'
#!/bin/bash
# Print "NAME: WORDS" for each .txt file in the directory given as $1.
dir=$1
shopt -s nullglob
for f in "$dir"/*.txt; do
  [ -f "$f" ] || continue
  printf '%s: %s\n' "${f##*/}" "$(wc -w < "$f")"
done | LC_ALL=C sort
SH
