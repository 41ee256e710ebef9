#!/bin/bash
echo "Hello, world!"
