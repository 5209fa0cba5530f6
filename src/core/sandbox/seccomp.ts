/**
 * The seccomp filter bubblewrap loads into a sandboxed command (`--seccomp FD`): it refuses to
 * open Unix sockets. A read-only bind does not stop connect(2) on a socket file, so without
 * it a command could reach a daemon outside (Docker's socket, the D-Bus session bus, a tmux
 * server) and have it write for it. Socket pairs stay allowed: a command's own processes talk
 * over them. io_uring is refused too, since its socket operation would go around the filter.
 *
 * bwrap reads a raw classic-BPF program: `struct sock_filter` entries (u16 code, u8 jt, u8 jf,
 * u32 k) in the machine's byte order, as libseccomp's export writes them.
 */
import os from 'node:os';

const LD_W_ABS = 0x20; // BPF_LD | BPF_W | BPF_ABS
const JEQ_K = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const JGE_K = 0x35; // BPF_JMP | BPF_JGE | BPF_K
const RET_K = 0x06; // BPF_RET | BPF_K

// Offsets into struct seccomp_data: nr, arch, then args[6] (u64 each; low half first on little-endian).
const NR = 0;
const ARCH = 4;
const ARG0_LOW = 16;

const RET_ALLOW = 0x7fff0000;
const RET_EPERM = 0x00050000 | 1; // SECCOMP_RET_ERRNO | EPERM
const RET_KILL_PROCESS = 0x80000000;

const AF_UNIX = 1;
const IO_URING_CALLS = [425, 426, 427]; // io_uring_setup, io_uring_enter, io_uring_register: the same on every architecture
const X32_SYSCALL_BIT = 0x40000000;

/** The architectures with a filter: their audit id and socket(2) number. */
const ARCHES: Record<string, { audit: number; socket: number; x32: boolean }> = {
  x64: { audit: 0xc000003e, socket: 41, x32: true },
  arm64: { audit: 0xc00000b7, socket: 198, x32: false },
};

type Target = 'allow' | 'deny' | 'kill';
type Step =
  | { op: 'load'; offset: number }
  | { op: 'jump'; cmp: 'eq' | 'ge'; value: number; then: Target | 'next'; else: Target | 'next' }
  | { op: 'label'; name: Target }
  | { op: 'return'; value: number };

/** The filter for `arch` (Node's `process.arch`), or undefined where there is none. */
export function seccompProgram(arch: string, endianness: 'LE' | 'BE' = os.endianness()): Buffer | undefined {
  const target = ARCHES[arch];
  if (!target || endianness !== 'LE') return undefined;
  const steps: Step[] = [
    // A call made in another ABI (a 32-bit binary's socketcall) is not what the table below knows.
    { op: 'load', offset: ARCH },
    { op: 'jump', cmp: 'eq', value: target.audit, then: 'next', else: 'kill' },
    { op: 'load', offset: NR },
    ...(target.x32 ? [{ op: 'jump', cmp: 'ge', value: X32_SYSCALL_BIT, then: 'deny', else: 'next' } as const] : []),
    ...IO_URING_CALLS.map((nr) => ({ op: 'jump', cmp: 'eq', value: nr, then: 'deny', else: 'next' }) as const),
    { op: 'jump', cmp: 'eq', value: target.socket, then: 'next', else: 'allow' },
    { op: 'load', offset: ARG0_LOW },
    { op: 'jump', cmp: 'eq', value: AF_UNIX, then: 'deny', else: 'allow' },
    { op: 'label', name: 'allow' },
    { op: 'return', value: RET_ALLOW },
    { op: 'label', name: 'deny' },
    { op: 'return', value: RET_EPERM },
    { op: 'label', name: 'kill' },
    { op: 'return', value: RET_KILL_PROCESS },
  ];
  return assemble(steps);
}

/** Lays the steps out as instructions, turning labels into the relative jumps BPF takes. */
function assemble(steps: Step[]): Buffer {
  const at = new Map<Target, number>();
  let count = 0;
  for (const step of steps) {
    if (step.op === 'label') at.set(step.name, count);
    else count++;
  }
  const out = Buffer.alloc(count * 8);
  let pc = 0;
  const emit = (code: number, jt: number, jf: number, k: number): void => {
    out.writeUInt16LE(code, pc * 8);
    out.writeUInt8(jt, pc * 8 + 2);
    out.writeUInt8(jf, pc * 8 + 3);
    out.writeUInt32LE(k >>> 0, pc * 8 + 4);
    pc++;
  };
  const offset = (to: Target | 'next'): number => {
    if (to === 'next') return 0;
    const distance = at.get(to)! - pc - 1;
    if (distance < 0 || distance > 255) throw new Error(`seccomp: jump to ${to} out of range`);
    return distance;
  };
  for (const step of steps) {
    if (step.op === 'load') emit(LD_W_ABS, 0, 0, step.offset);
    else if (step.op === 'jump') emit(step.cmp === 'eq' ? JEQ_K : JGE_K, offset(step.then), offset(step.else), step.value);
    else if (step.op === 'return') emit(RET_K, 0, 0, step.value);
  }
  return out;
}
