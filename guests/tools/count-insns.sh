#!/bin/sh
# Counts the instructions a Linux guest retires under qemu-riscv64 (one translation block per
# instruction, one trace line per executed block). Slow (about 2 µs per instruction).
# Usage, from guests/: tools/count-insns.sh bin/NAME.elf [ARGS...] [< STDIN]
exec qemu-riscv64 -singlestep -d exec,nochain "$@" 2>&1 >/dev/null | grep -c '^Trace'
