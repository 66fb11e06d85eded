/**
 * A tiny WebAssembly (SIMD) scanner that tells whether UTF-8 bytes contain a byte JSON
 * quoting would escape (`"`, `\` or a control character below 0x20). It lets the digest
 * stream long strings to xxhash without first building their JSON-quoted copy.
 */
export interface EscapeScanner {
  /** Scratch space in the scanner's memory; encode into it, then call {@link hasEscapes}. */
  readonly scratch: Uint8Array;
  /** True if `scratch[0 .. length)` holds a byte that JSON quoting would escape. */
  hasEscapes(length: number): boolean;
}

const PAGE = 64 * 1024;

/** The slice of the WebAssembly global this file uses (the ES2022 lib does not declare it). */
interface WasmGlobal {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { readonly exports: Record<string, unknown> };
}

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

function section(id: number, body: number[]): number[] {
  return [id, ...uleb(body.length), ...body];
}

function name(text: string): number[] {
  return [text.length, ...Array.from(text, (c) => c.charCodeAt(0))];
}

const V = 2; // local v128: the current 16 bytes
const C_CTRL = 3; // local v128: splat(0x20)
const C_QUOTE = 4; // local v128: splat('"')
const C_BSLASH = 5; // local v128: splat('\\')
const B = 6; // local i32: the current byte

/** Mask of escapable lanes in the 16 bytes at `ptr + offset`. */
function laneMask(offset: number): number[] {
  // prettier-ignore
  return [
    0x20, 0x00, 0xfd, 0x00, 0x00, ...uleb(offset), 0x22, V, // v = v128.load
    0x20, C_CTRL, 0xfd, 0x26,                              // v <u 0x20
    0x20, V, 0x20, C_QUOTE, 0xfd, 0x23, 0xfd, 0x50,        // | v == '"'
    0x20, V, 0x20, C_BSLASH, 0xfd, 0x23, 0xfd, 0x50,       // | v == '\\'
  ];
}

/** `while (ptr + step <= end) { if (any_true(masks)) return 1; ptr += step }` */
function vectorLoop(vectors: number): number[] {
  const step = vectors * 16;
  const masks: number[] = [...laneMask(0)];
  for (let i = 1; i < vectors; i++) masks.push(...laneMask(i * 16), 0xfd, 0x50);
  // prettier-ignore
  return [
    0x02, 0x40, 0x03, 0x40,
    0x20, 0x00, 0x41, ...sleb(step), 0x6a, 0x20, 0x01, 0x4b, 0x0d, 0x01,
    ...masks,
    0xfd, 0x53, 0x04, 0x40, 0x41, 0x01, 0x0f, 0x0b,
    0x20, 0x00, 0x41, ...sleb(step), 0x6a, 0x21, 0x00, 0x0c, 0x00,
    0x0b, 0x0b,
  ];
}

function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0)) {
      out.push(byte);
      return out;
    }
    out.push(byte | 0x80);
  }
}

/** (func $scan (param $ptr i32) (param $end i32) (result i32)): 1 on the first escapable byte. */
// prettier-ignore
const SCAN_BODY: number[] = [
  0x02, 0x04, 0x7b, 0x01, 0x7f,                          // locals: 4 × v128, 1 × i32
  0x41, 0x20, 0xfd, 0x0f, 0x21, C_CTRL,
  0x41, 0x22, 0xfd, 0x0f, 0x21, C_QUOTE,
  0x41, ...sleb(0x5c), 0xfd, 0x0f, 0x21, C_BSLASH,
  ...vectorLoop(4),
  ...vectorLoop(1),
  0x02, 0x40, 0x03, 0x40,
  0x20, 0x00, 0x20, 0x01, 0x4f, 0x0d, 0x01,              // ptr >= end → break
  0x20, 0x00, 0x2d, 0x00, 0x00, 0x22, B,                 // b = i32.load8_u ptr
  0x41, 0x20, 0x49,                                      // b <u 0x20
  0x20, B, 0x41, 0x22, 0x46, 0x72,                       // | b == '"'
  0x20, B, 0x41, ...sleb(0x5c), 0x46, 0x72,              // | b == '\\'
  0x04, 0x40, 0x41, 0x01, 0x0f, 0x0b,
  0x20, 0x00, 0x41, 0x01, 0x6a, 0x21, 0x00, 0x0c, 0x00,
  0x0b, 0x0b,
  0x41, 0x00, 0x0b,
];

function moduleBytes(pages: number): Uint8Array {
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [0x01, 0x60, 0x02, 0x7f, 0x7f, 0x01, 0x7f]),
    ...section(3, [0x01, 0x00]),
    ...section(5, [0x01, 0x00, ...uleb(pages)]),
    ...section(7, [0x02, ...name('mem'), 0x02, 0x00, ...name('scan'), 0x00, 0x00]),
    ...section(10, [0x01, ...uleb(SCAN_BODY.length), ...SCAN_BODY]),
  ]);
}

/**
 * Instantiates a scanner whose scratch space holds at least `capacity` bytes.
 * Returns `undefined` when WebAssembly SIMD is unavailable; callers then fall back to
 * quoting with `JSON.stringify`.
 */
export function createEscapeScanner(capacity: number): EscapeScanner | undefined {
  const wasm = (globalThis as { WebAssembly?: WasmGlobal }).WebAssembly;
  if (wasm === undefined) return undefined;
  try {
    const bytes = moduleBytes(Math.ceil(capacity / PAGE));
    if (!wasm.validate(bytes)) return undefined;
    const { exports } = new wasm.Instance(new wasm.Module(bytes));
    const memory = exports.mem as { readonly buffer: ArrayBuffer };
    const scan = exports.scan as (ptr: number, end: number) => number;
    return {
      scratch: new Uint8Array(memory.buffer),
      hasEscapes: (length) => scan(0, length) !== 0,
    };
  } catch {
    return undefined;
  }
}
