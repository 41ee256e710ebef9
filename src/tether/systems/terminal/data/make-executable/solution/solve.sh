#!/bin/bash
chmod +x /app/greet.sh
