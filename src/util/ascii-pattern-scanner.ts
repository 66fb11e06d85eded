/**
 * Which of a few short ASCII patterns may occur in a text, found in one vectorised pass.
 *
 * `String#includes` looks for a pattern's first character and compares from each occurrence of
 * it, restarting its scan after every one (~50 instructions a hit in V8). A pattern that starts
 * with a common character, such as the backslash that every escaped newline and quote of a JSON
 * text starts with, costs about 0.35 µs per KB, and each further pattern another pass. This
 * scanner copies the text into a WebAssembly memory, one byte per UTF-16 unit (`Buffer#write`
 * with `latin1`: each unit's low byte, a plain copy for V8's one-byte strings), and compares 16
 * bytes at once against every pattern with SIMD instructions: one pass, no branch per byte,
 * whatever the characters. Every occurrence of an ASCII pattern is found, as its units are their
 * own low bytes; a unit above U+00FF whose low byte is ASCII (U+015C, `Ŝ`, reads as `\\`) may
 * add one that is not there, so a caller that needs to know confirms a hit with `includes`.
 * (`TextEncoder#encodeInto` would give exact UTF-8 bytes, but Node 20 encodes a text with any
 * non-ASCII character one character at a time: 5.3 µs for the bench's 10 KB structured result,
 * against 1.0 µs for the narrowing copy.)
 *
 * The module is generated for the patterns (their characters, each repeated 16 times, sit at the
 * top of its memory as the operands of its comparisons) and instantiated synchronously; each
 * scanner owns its memory (one 64 KiB page, never grown): texts are copied in slices of
 * {@link SLICE_CHARS} units that overlap by the longest pattern's length less one, so an
 * occurrence across a slice boundary is seen whole in the next slice.
 */

/** UTF-16 units copied per pass, one byte each (exported for the tests of slice boundaries). */
export const SLICE_CHARS = 48 * 1024;
/** Bytes cleared after a slice's bytes: the widest unaligned read (16 bytes at the longest pattern's last offset) stays in them. */
const PADDING = 32;
const MAX_PATTERN_LENGTH = 16;
const MAX_PATTERNS = 30;
const PAGE_BYTES = 65_536;
/**
 * Where the comparisons' operands (each pattern character 16 times) start: the top of the page,
 * above the text and its padding. Read from memory, they cost one load each; as `v128.const`
 * immediates V8 builds each one anew in every step (the scan took 1.7 × as long).
 */
function operandsAt(characters: number): number {
  return PAGE_BYTES - 16 * characters;
}

/** WebAssembly opcodes the generated module uses. */
const OP = {
  block: 0x02,
  loop: 0x03,
  if: 0x04,
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  localGet: 0x20,
  localSet: 0x21,
  i32Const: 0x41,
  i32GeU: 0x4f,
  i32Add: 0x6a,
  i32Or: 0x72,
  i32Shl: 0x74,
  simd: 0xfd,
  typeI32: 0x7f,
  typeV128: 0x7b,
  typeFunc: 0x60,
  blockVoid: 0x40,
} as const;
/** SIMD sub-opcodes (after the 0xFD prefix). */
const SIMD = { v128Load: 0x00, i8x16Eq: 0x23, v128And: 0x4e, v128Or: 0x50, anyTrue: 0x53 } as const;

function uleb(value: number): number[] {
  const out: number[] = [];
  let rest = value >>> 0;
  do {
    const byte = rest & 0x7f;
    rest >>>= 7;
    out.push(rest === 0 ? byte : byte | 0x80);
  } while (rest !== 0);
  return out;
}

function sized(bytes: readonly number[]): number[] {
  return [...uleb(bytes.length), ...bytes];
}

function section(id: number, items: readonly (readonly number[])[]): number[] {
  return [id, ...sized([...uleb(items.length), ...items.flat()])];
}

function simd(op: number): number[] {
  return [OP.simd, ...uleb(op)];
}

/**
 * The module's one function, `scan(length) → mask`: over bytes `[0, length)` of its memory, 16
 * start positions per step, bit `j` of the mask set when pattern `j` starts at any of them. A
 * step first compares each pattern's first and last characters only (a pattern starts only where
 * both are); every character is compared only in the steps where some pattern's two are, few in
 * most texts, so a step costs about half the comparisons. Locals: 0 the length, 1 the position,
 * then the 16-byte reads at offsets 0…longest-1, then one accumulator per pattern. Operand `q`
 * (the `q`-th character of the patterns in order, 16 times) is at `operands + 16 q`.
 */
function scanFunction(patterns: readonly string[], operands: number): number[] {
  const longest = Math.max(...patterns.map((p) => p.length));
  const position = 1;
  const read = (offset: number) => 2 + offset;
  const found = (j: number) => 2 + longest + j;
  const firstOperand: number[] = [];
  let operand = operands;
  for (const pattern of patterns) {
    firstOperand.push(operand);
    operand += 16 * pattern.length;
  }
  const load = (offset: number) => [
    ...[OP.localGet, position, ...simd(SIMD.v128Load), 0, ...uleb(offset)],
    ...[OP.localSet, read(offset)],
  ];
  /** Compares the 16-byte read at offset `k` with character `k` of pattern `j` (its operand). */
  const compare = (j: number, k: number) => [
    ...[OP.localGet, read(k), OP.i32Const, 0, ...simd(SIMD.v128Load), 0, ...uleb(firstOperand[j] + 16 * k)],
    ...simd(SIMD.i8x16Eq),
  ];
  const ends = new Set(patterns.flatMap((pattern) => [0, pattern.length - 1]));
  const body: number[] = [OP.block, OP.blockVoid, OP.loop, OP.blockVoid];
  body.push(OP.localGet, position, OP.localGet, 0, OP.i32GeU, OP.brIf, 1);
  for (const offset of ends) body.push(...load(offset));
  patterns.forEach((pattern, j) => {
    body.push(...compare(j, 0));
    if (pattern.length > 1) body.push(...compare(j, pattern.length - 1), ...simd(SIMD.v128And));
    if (j > 0) body.push(...simd(SIMD.v128Or));
  });
  body.push(...simd(SIMD.anyTrue), OP.if, OP.blockVoid);
  for (let offset = 1; offset < longest; offset += 1) if (!ends.has(offset)) body.push(...load(offset));
  patterns.forEach((pattern, j) => {
    for (let k = 0; k < pattern.length; k += 1) {
      body.push(...compare(j, k));
      if (k > 0) body.push(...simd(SIMD.v128And));
    }
    body.push(OP.localGet, found(j), ...simd(SIMD.v128Or), OP.localSet, found(j));
  });
  body.push(OP.end);
  body.push(OP.localGet, position, OP.i32Const, 16, OP.i32Add, OP.localSet, position, OP.br, 0, OP.end, OP.end);
  body.push(OP.i32Const, 0);
  patterns.forEach((_, j) =>
    body.push(OP.localGet, found(j), ...simd(SIMD.anyTrue), OP.i32Const, j, OP.i32Shl, OP.i32Or),
  );
  body.push(OP.end);
  const locals = [2, 1, OP.typeI32, ...uleb(longest + patterns.length), OP.typeV128];
  return sized([...locals, ...body]);
}

function name(text: string): number[] {
  return sized([...Buffer.from(text, 'latin1')]);
}

/**
 * The part of the WebAssembly API used here. Node has it as a global; `@types/node` 20 leaves its
 * types to the DOM library, which this package does not compile against.
 */
interface WasmApi {
  readonly Module: new (bytes: Uint8Array) => object;
  readonly Instance: new (module: object) => { readonly exports: Record<string, unknown> };
}

interface ScannerExports {
  readonly scan: (length: number) => number;
  readonly memory: { readonly buffer: ArrayBuffer };
}

function instantiate(patterns: readonly string[], operands: number): ScannerExports {
  const wasm = (globalThis as unknown as { readonly WebAssembly: WasmApi }).WebAssembly;
  return new wasm.Instance(new wasm.Module(scannerModule(patterns, operands))).exports as unknown as ScannerExports;
}

function scannerModule(patterns: readonly string[], operands: number): Uint8Array {
  const bytes = [
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [[OP.typeFunc, 1, OP.typeI32, 1, OP.typeI32]]),
    ...section(3, [[0]]),
    ...section(5, [[0x01, 1, 1]]),
    ...section(7, [
      [...name('scan'), 0x00, 0],
      [...name('memory'), 0x02, 0],
    ]),
    ...section(10, [scanFunction(patterns, operands)]),
  ];
  return new Uint8Array(bytes);
}

/** Whether every character is U+0001–U+007F (a NUL would match the zero padding). */
function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code === 0 || code > 0x7f) return false;
  }
  return true;
}

/** Finds which of its patterns may occur in a text (see the module comment). */
export class AsciiPatternScanner {
  private readonly scanBytes: (length: number) => number;
  /** The text's bytes and their padding. */
  private readonly bytes: Uint8Array;
  /** Where slices are copied (the bytes without the padding). */
  private readonly target: Buffer;
  private readonly overlap: number;
  private readonly all: number;

  /**
   * @param patterns - 1 to 30 patterns of 1 to 16 ASCII characters (U+0001–U+007F) each; bit `j`
   *   of {@link mayOccur}'s mask stands for `patterns[j]`.
   * @throws RangeError for any other patterns.
   */
  constructor(readonly patterns: readonly string[]) {
    if (patterns.length === 0 || patterns.length > MAX_PATTERNS)
      throw new RangeError(`AsciiPatternScanner: 1 to ${MAX_PATTERNS} patterns, got ${patterns.length}`);
    for (const pattern of patterns)
      if (pattern.length === 0 || pattern.length > MAX_PATTERN_LENGTH || !isAscii(pattern))
        throw new RangeError(
          `AsciiPatternScanner: a pattern is 1 to ${MAX_PATTERN_LENGTH} ASCII characters, got ${JSON.stringify(pattern)}`,
        );
    const characters = patterns.join('');
    const operands = operandsAt(characters.length);
    const { scan, memory } = instantiate(patterns, operands);
    const page = new Uint8Array(memory.buffer);
    for (let q = 0; q < characters.length; q += 1)
      page.fill(characters.charCodeAt(q), operands + 16 * q, operands + 16 * (q + 1));
    this.scanBytes = scan;
    this.bytes = page.subarray(0, SLICE_CHARS + PADDING);
    this.target = Buffer.from(memory.buffer, 0, SLICE_CHARS);
    this.overlap = Math.max(...patterns.map((p) => p.length)) - 1;
    this.all = 2 ** patterns.length - 1;
  }

  /**
   * A mask of the patterns that may occur in `text`: bit `j` is set when `patterns[j]` occurs,
   * and may be set when a unit above U+00FF reads as one of its characters (see above).
   */
  mayOccur(text: string): number {
    let mask = 0;
    for (let start = 0; start < text.length && mask !== this.all; start += SLICE_CHARS - this.overlap)
      mask |= this.scanSlice(text.substring(start, start + SLICE_CHARS));
    return mask;
  }

  private scanSlice(text: string): number {
    const { bytes } = this;
    const written = this.target.write(text, 0, 'latin1');
    bytes.fill(0, written, written + PADDING);
    return this.scanBytes(written);
  }
}
