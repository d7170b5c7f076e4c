# Zicsr on the user-level CSRs: fcsr / frm / fflags with csrrw/s/c and the
# immediate forms, field masking, rd = x0 and rs1 = x0 / uimm = 0 rules, and
# the cycle / time / instret counters.
#include "isa_test.h"

/* Clear fcsr, preset csr to init, run `op a0, csr, src`; check a0 == old, then the
 * CSR's new value (read with csrr) == new, and fcsr == fcsr_after. */
.macro TEST_CSR n, op, csr, init, src, old, new, fcsr_after
  CASE \n
  csrw fcsr, x0
  li t0, \init
  csrw \csr, t0
  .ifc \op, csrrw
    li a1, \src
    \op a0, \csr, a1
  .else
  .ifc \op, csrrs
    li a1, \src
    \op a0, \csr, a1
  .else
  .ifc \op, csrrc
    li a1, \src
    \op a0, \csr, a1
  .else
    \op a0, \csr, \src
  .endif
  .endif
  .endif
  CHECK a0, \old
  csrr a2, \csr
  CHECK a2, \new
  csrr a3, fcsr
  CHECK a3, \fcsr_after
.endm

TEST_BEGIN
  # fcsr = frm[7:5] | fflags[4:0]; bits above 7 read as zero
  TEST_CSR  2, csrrw, fcsr, 0, 0xa5, 0, 0xa5, 0xa5
  TEST_CSR  3, csrrw, fcsr, 0x1f, 0xfff, 0x1f, 0xff, 0xff
  TEST_CSR  4, csrrs, fcsr, 0x21, 0x42, 0x21, 0x63, 0x63
  TEST_CSR  5, csrrc, fcsr, 0xff, 0x0f, 0xff, 0xf0, 0xf0
  TEST_CSR  6, csrrwi, fcsr, 0xff, 0x13, 0xff, 0x13, 0x13
  TEST_CSR  7, csrrsi, fcsr, 0x40, 0x1f, 0x40, 0x5f, 0x5f
  TEST_CSR  8, csrrci, fcsr, 0x5f, 0x11, 0x5f, 0x4e, 0x4e
  # frm: 3 bits, visible in fcsr[7:5]
  TEST_CSR  9, csrrw, frm, 0, 3, 0, 3, 0x60
  TEST_CSR 10, csrrw, frm, 1, 0xff, 1, 7, 0xe0
  TEST_CSR 11, csrrs, frm, 1, 4, 1, 5, 0xa0
  TEST_CSR 12, csrrc, frm, 7, 2, 7, 5, 0xa0
  TEST_CSR 13, csrrwi, frm, 4, 2, 4, 2, 0x40
  TEST_CSR 14, csrrsi, frm, 2, 1, 2, 3, 0x60
  TEST_CSR 15, csrrci, frm, 3, 1, 3, 2, 0x40
  # fflags: 5 bits, visible in fcsr[4:0]; frm untouched
  CASE 16
  li t0, 0x40                     # frm = 2
  csrw fcsr, t0
  li a1, 0xff
  csrrw a0, fflags, a1
  CHECK a0, 0
  csrr a2, fcsr
  CHECK a2, 0x5f
  TEST_CSR 17, csrrs, fflags, 0x01, 0x10, 0x01, 0x11, 0x11
  TEST_CSR 18, csrrc, fflags, 0x1f, 0x03, 0x1f, 0x1c, 0x1c
  TEST_CSR 19, csrrwi, fflags, 0x1c, 0x08, 0x1c, 0x08, 0x08
  TEST_CSR 20, csrrsi, fflags, 0x08, 0x04, 0x08, 0x0c, 0x0c
  TEST_CSR 21, csrrci, fflags, 0x0c, 0x1f, 0x0c, 0x00, 0x00
  # rd = x0: csrrw still writes
  CASE 22
  csrwi fcsr, 0
  li a1, 0x2a
  csrrw x0, fcsr, a1
  CHECK x0, 0
  csrr a0, fcsr
  CHECK a0, 0x2a
  # rs1 = x0 / uimm = 0: csrrs and csrrc only read
  CASE 23
  csrrs a0, fcsr, x0
  CHECK a0, 0x2a
  csrrc a0, fcsr, x0
  CHECK a0, 0x2a
  csrrsi a0, fcsr, 0
  CHECK a0, 0x2a
  csrrci a0, fflags, 0
  CHECK a0, 0x0a
  csrr a0, fcsr
  CHECK a0, 0x2a
  # rs1 = rd: the old value is read before the new one is written
  CASE 24
  li a1, 0x77
  csrrw a1, fcsr, a1
  CHECK a1, 0x2a
  csrr a0, fcsr
  CHECK a0, 0x77
  # the pseudo-instructions
  CASE 25
  fsrmi a0, 1                     # csrrwi a0, frm, 1
  CHECK a0, 3
  fsflagsi a0, 0x15               # csrrwi a0, fflags, 0x15
  CHECK a0, 0x17
  frcsr a0
  CHECK a0, 0x35
  fscsr a0, x0                    # csrrw a0, fcsr, x0: writes zero
  CHECK a0, 0x35
  frcsr a0
  CHECK a0, 0
  # counters: cycle and time never decrease; instret counts retired instructions
  CASE 26
  rdcycle a1
  rdtime a2
  rdinstret a3
  .rept 100
  nop
  .endr
  rdinstret a4
  rdtime a5
  rdcycle a6
  bltu a6, a1, fail
  bltu a5, a2, fail
  sub a4, a4, a3
  sltiu a0, a4, 100               # at least the 100 nops retired in between
  CHECK a0, 0
TEST_END
