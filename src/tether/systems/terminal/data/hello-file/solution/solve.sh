#!/bin/bash
printf 'hello\n' > /app/hello.txt
