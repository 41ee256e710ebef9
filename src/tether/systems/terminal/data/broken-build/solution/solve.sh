#!/bin/bash
cat > /app/Makefile <<'MK'
CC = gcc
CFLAGS = -Wall -O2 -Iinclude
OBJS = src/main.o src/mathx.o

calc: $(OBJS)
	$(CC) $(CFLAGS) -o calc $(OBJS) -lm

src/%.o: src/%.c include/mathx.h
	$(CC) $(CFLAGS) -c $< -o $@

clean:
	rm -f calc $(OBJS)
MK
cd /app && make
