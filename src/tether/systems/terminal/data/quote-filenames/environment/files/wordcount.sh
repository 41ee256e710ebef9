#!/bin/bash
# Print "NAME: WORDS" for each .txt file in the directory given as $1.
dir=$1
for f in $(ls $dir/*.txt | sort); do
  n=$(wc -w < $f)
  echo "$(basename $f): $n"
done
