import { describe, expect, it } from 'vitest';
import { seccompProgram } from '../../../src/core/sandbox/seccomp.js';

interface Insn {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

function decode(program: Buffer): Insn[] {
  const out: Insn[] = [];
  for (let i = 0; i < program.length; i += 8) {
    out.push({ code: program.readUInt16LE(i), jt: program[i + 2]!, jf: program[i + 3]!, k: program.readUInt32LE(i + 4) });
  }
  return out;
}

/**
 * A small classic-BPF interpreter for the instructions the filter uses, so the table below
 * checks what the program decides, not how it is laid out. The real kernel runs it in
 * test/core/sandbox/escapes.test.ts.
 */
function verdict(program: Buffer, call: { arch: number; nr: number; arg0?: number }): number {
  const insns = decode(program);
  const data = Buffer.alloc(64);
  data.writeUInt32LE(call.nr, 0);
  data.writeUInt32LE(call.arch, 4);
  data.writeUInt32LE(call.arg0 ?? 0, 16);
  let acc = 0;
  for (let pc = 0; pc < insns.length; pc++) {
    const { code, jt, jf, k } = insns[pc]!;
    if (code === 0x20) acc = data.readUInt32LE(k);
    else if (code === 0x15) pc += acc === k ? jt : jf;
    else if (code === 0x35) pc += acc >= k ? jt : jf;
    else if (code === 0x06) return k;
    else throw new Error(`unexpected instruction ${code.toString(16)} at ${pc}`);
    if (pc >= insns.length) throw new Error('jumped past the end');
  }
  throw new Error('fell off the end');
}

const ALLOW = 0x7fff0000;
const EPERM = 0x00050001;
const KILL = 0x80000000;
const X64 = 0xc000003e;
const ARM64 = 0xc00000b7;
const I386 = 0x40000003;

describe('seccompProgram', () => {
  it.each<[string, string, { arch: number; nr: number; arg0?: number }, number]>([
    ['x64: socket(AF_UNIX) refused', 'x64', { arch: X64, nr: 41, arg0: 1 }, EPERM],
    ['x64: socket(AF_INET) allowed (the network namespace has no way out)', 'x64', { arch: X64, nr: 41, arg0: 2 }, ALLOW],
    ["x64: socketpair allowed (pipes between the command's own processes)", 'x64', { arch: X64, nr: 53, arg0: 1 }, ALLOW],
    ['x64: read allowed', 'x64', { arch: X64, nr: 0 }, ALLOW],
    ['x64: io_uring_setup refused (it opens sockets past the filter)', 'x64', { arch: X64, nr: 425 }, EPERM],
    ['x64: io_uring_enter refused', 'x64', { arch: X64, nr: 426 }, EPERM],
    ['x64: io_uring_register refused', 'x64', { arch: X64, nr: 427 }, EPERM],
    ['x64: an x32 socket call refused', 'x64', { arch: X64, nr: 0x40000000 + 41, arg0: 1 }, EPERM],
    ['x64: a 32-bit process is killed (its socketcall is not filtered)', 'x64', { arch: I386, nr: 102 }, KILL],
    ['arm64: socket(AF_UNIX) refused', 'arm64', { arch: ARM64, nr: 198, arg0: 1 }, EPERM],
    ['arm64: socket(AF_INET6) allowed', 'arm64', { arch: ARM64, nr: 198, arg0: 10 }, ALLOW],
    ['arm64: nr 41 is not socket there', 'arm64', { arch: ARM64, nr: 41, arg0: 1 }, ALLOW],
    ['arm64: io_uring_setup refused', 'arm64', { arch: ARM64, nr: 425 }, EPERM],
    ['arm64: an x64 call is killed', 'arm64', { arch: X64, nr: 41, arg0: 1 }, KILL],
  ])('%s', (_name, arch, call, expected) => {
    const program = seccompProgram(arch);
    if (!program) throw new Error(`no program for ${arch}`);
    expect(verdict(program, call)).toBe(expected);
  });

  it('has none for other architectures', () => {
    expect(seccompProgram('riscv64')).toBeUndefined();
    expect(seccompProgram('ia32')).toBeUndefined();
  });
});
