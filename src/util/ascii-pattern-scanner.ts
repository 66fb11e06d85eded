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
 * The module is generated for the patterns (the tables and characters it compares with sit at
 * the top of its memory) and instantiated synchronously; each scanner owns its memory (one 64 KiB
 * page, never grown): texts are copied in slices of {@link SLICE_CHARS} units that overlap by the
 * longest pattern's length less one, so an occurrence across a slice boundary is seen whole in
 * the next slice.
 */

/** UTF-16 units copied per pass, one byte each (exported for the tests of slice boundaries). */
export const SLICE_CHARS = 48 * 1024;
/** Bytes cleared after a slice's bytes: the widest unaligned read (16 bytes at the longest pattern's last offset) stays in them. */
const PADDING = 32;
const MIN_PATTERN_LENGTH = 2;
const MAX_PATTERN_LENGTH = 16;
const MAX_PATTERNS = 30;
const PAGE_BYTES = 65_536;
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
const SIMD = { v128Load: 0x00, i8x16Swizzle: 0x0e, i8x16Eq: 0x23, v128And: 0x4e, v128Or: 0x50, anyTrue: 0x53 } as const;

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
 * Patterns whose filters compare the same two offsets, first character and character `offset`:
 * a lone pattern compares them directly; two or more, whose first characters differ in their low
 * four bits, look both up in tables of theirs (see {@link scanFunction}).
 */
interface FilterGroup {
  readonly offset: number;
  readonly members: readonly number[];
}

function filterGroups(patterns: readonly string[], offsets: readonly number[]): FilterGroup[] {
  const groups: { offset: number; members: number[]; nibbles: Set<number> }[] = [];
  patterns.forEach((pattern, j) => {
    const nibble = pattern.charCodeAt(0) & 0x0f;
    let group = groups.find((candidate) => candidate.offset === offsets[j] && !candidate.nibbles.has(nibble));
    if (group === undefined) {
      group = { offset: offsets[j], members: [], nibbles: new Set() };
      groups.push(group);
    }
    group.members.push(j);
    group.nibbles.add(nibble);
  });
  return groups.map(({ offset, members }) => ({ offset, members }));
}

/** Where each operand sits in the page (its address) and the 16 bytes each holds. */
interface OperandLayout {
  /** Where the mask of each byte's low four bits is; `undefined` when no group looks up (all patterns alone at their offsets). */
  readonly nibbleMask: number | undefined;
  /** Per group: where its tables of first and filtered characters are (`-1` for a lone pattern). */
  readonly tables: readonly (readonly [number, number])[];
  /** Per pattern: where the operand of its first character is (the others follow, 16 bytes each). */
  readonly characters: readonly number[];
  readonly fill: readonly (readonly [number, readonly number[]])[];
}

/**
 * The operands of the comparisons, at the top of the page, above the text and its padding. Read
 * from memory, they cost one load each; as `v128.const` immediates V8 builds each one anew in
 * every step (the scan took 1.7 × as long).
 */
function operandLayout(patterns: readonly string[], groups: readonly FilterGroup[]): OperandLayout {
  const tablePairs = groups.filter((group) => group.members.length > 1).length;
  const characterCount = patterns.reduce((sum, pattern) => sum + pattern.length, 0);
  const fill: [number, number[]][] = [];
  let at = PAGE_BYTES - 16 * ((tablePairs > 0 ? 1 + 2 * tablePairs : 0) + characterCount);
  const place = (bytes: number[]): number => {
    fill.push([at, bytes]);
    at += 16;
    return at - 16;
  };
  const nibbleMask = tablePairs > 0 ? place(new Array<number>(16).fill(0x0f)) : undefined;
  const tables = groups.map(({ offset, members }): [number, number] => {
    if (members.length === 1) return [-1, -1];
    // An unused entry must equal no byte with its index as low four bits: index ^ 1 never does.
    const first = Array.from({ length: 16 }, (_, index) => index ^ 1);
    const filtered = new Array<number>(16).fill(0);
    for (const j of members) {
      const nibble = patterns[j].charCodeAt(0) & 0x0f;
      first[nibble] = patterns[j].charCodeAt(0);
      filtered[nibble] = patterns[j].charCodeAt(offset);
    }
    return [place(first), place(filtered)];
  });
  const characters = patterns.map((pattern) => {
    const own = at;
    for (let k = 0; k < pattern.length; k += 1) place(new Array<number>(16).fill(pattern.charCodeAt(k)));
    return own;
  });
  return { nibbleMask, tables, characters, fill };
}

/**
 * The module's one function, `scan(length) → mask`: over bytes `[0, length)` of its memory, 16
 * start positions per step, bit `j` of the mask set when pattern `j` starts at any of them. A
 * step first asks whether some pattern's first character and one other (its filter's, see
 * {@link AsciiPatternScanner}) are in place at some position. Patterns whose filters use the
 * same offset share the question: each byte's low four bits index a table of their first
 * characters and one of their filtered characters (`i8x16.swizzle`), and the bytes read at
 * offset 0 and at the filter's offset are compared with what the tables give, so one lookup and
 * one comparison per read serve up to 16 patterns, where comparing each character costs one per
 * pattern. Every character is compared only in the steps where some filter matches, few in most
 * texts. Locals: 0 the length, 1 the position, then the 16-byte reads at offsets 0…longest-1,
 * one accumulator per pattern, and (when some group looks up) the low four bits of the read at
 * offset 0.
 */
function scanFunction(patterns: readonly string[], groups: readonly FilterGroup[], layout: OperandLayout): number[] {
  const longest = Math.max(...patterns.map((p) => p.length));
  const position = 1;
  const read = (offset: number) => 2 + offset;
  const found = (j: number) => 2 + longest + j;
  const nibbles = 2 + longest + patterns.length;
  const operand = (at: number) => [OP.i32Const, 0, ...simd(SIMD.v128Load), 0, ...uleb(at)];
  const load = (offset: number) => [
    ...[OP.localGet, position, ...simd(SIMD.v128Load), 0, ...uleb(offset)],
    ...[OP.localSet, read(offset)],
  ];
  /** Compares the 16-byte read at offset `k` with character `k` of pattern `j` (its operand). */
  const compare = (j: number, k: number) => [
    ...[OP.localGet, read(k), ...operand(layout.characters[j] + 16 * k)],
    ...simd(SIMD.i8x16Eq),
  ];
  const lookUp = (table: number, offset: number) => [
    ...operand(table),
    ...[OP.localGet, nibbles, ...simd(SIMD.i8x16Swizzle)],
    ...[OP.localGet, read(offset), ...simd(SIMD.i8x16Eq)],
  ];
  const filtered = new Set([0, ...groups.map((group) => group.offset)]);
  const body: number[] = [OP.block, OP.blockVoid, OP.loop, OP.blockVoid];
  body.push(OP.localGet, position, OP.localGet, 0, OP.i32GeU, OP.brIf, 1);
  for (const offset of filtered) body.push(...load(offset));
  if (layout.nibbleMask !== undefined)
    body.push(OP.localGet, read(0), ...operand(layout.nibbleMask), ...simd(SIMD.v128And), OP.localSet, nibbles);
  groups.forEach(({ offset, members }, g) => {
    const [first, second] = layout.tables[g];
    if (members.length === 1) body.push(...compare(members[0], 0), ...compare(members[0], offset));
    else body.push(...lookUp(first, 0), ...lookUp(second, offset));
    body.push(...simd(SIMD.v128And));
    if (g > 0) body.push(...simd(SIMD.v128Or));
  });
  body.push(...simd(SIMD.anyTrue), OP.if, OP.blockVoid);
  for (let offset = 1; offset < longest; offset += 1) if (!filtered.has(offset)) body.push(...load(offset));
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
  const vectors = longest + patterns.length + (layout.nibbleMask === undefined ? 0 : 1);
  const locals = [2, 1, OP.typeI32, ...uleb(vectors), OP.typeV128];
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

function instantiate(
  patterns: readonly string[],
  groups: readonly FilterGroup[],
  layout: OperandLayout,
): ScannerExports {
  const wasm = (globalThis as unknown as { readonly WebAssembly: WasmApi }).WebAssembly;
  const module = new wasm.Module(scannerModule(scanFunction(patterns, groups, layout)));
  return new wasm.Instance(module).exports as unknown as ScannerExports;
}

function scannerModule(scan: readonly number[]): Uint8Array {
  const bytes = [
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [[OP.typeFunc, 1, OP.typeI32, 1, OP.typeI32]]),
    ...section(3, [[0]]),
    ...section(5, [[0x01, 1, 1]]),
    ...section(7, [
      [...name('scan'), 0x00, 0],
      [...name('memory'), 0x02, 0],
    ]),
    ...section(10, [scan]),
  ];
  return new Uint8Array(bytes);
}

/** Each pattern's filter offset: its `filterAt` entry, else 1. */
function filterOffsets(patterns: readonly string[], filterAt: Readonly<Record<string, number>>): number[] {
  for (const text of Object.keys(filterAt))
    if (!patterns.includes(text))
      throw new RangeError(`AsciiPatternScanner: filterAt ${JSON.stringify(text)} names no pattern`);
  // The offsets are checked as read, once: a getter or a key the listing above skips cannot slip by.
  return patterns.map((pattern) => {
    if (!Object.hasOwn(filterAt, pattern)) return 1;
    const offset: unknown = filterAt[pattern];
    if (typeof offset !== 'number' || !Number.isInteger(offset) || offset < 1 || offset >= pattern.length)
      throw new RangeError(
        `AsciiPatternScanner: filterAt ${JSON.stringify(pattern)} must be the index of one of its characters after the first (1 to ${pattern.length - 1}), got ${String(offset)}`,
      );
    return offset;
  });
}

/** Whether every character is U+0001–U+007F (a NUL would match the zero padding). */
function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code === 0 || code > 0x7f) return false;
  }
  return true;
}

/** Options of {@link AsciiPatternScanner}. */
export interface AsciiPatternScannerOptions {
  /**
   * Per pattern, by its text: the index (from 0, so at least 1) of the character the filter compares besides its
   * first. Pick one that seldom follows the first at that distance in the texts scanned. Default:
   * 1, the second character, for every pattern.
   */
  readonly filterAt?: Readonly<Record<string, number>>;
}

/**
 * Finds which of its patterns may occur in a text (see the module comment). A step of the scan
 * compares every character of the patterns only where some pattern's filter matches: its first
 * character and one other in place ({@link AsciiPatternScannerOptions.filterAt}).
 */
export class AsciiPatternScanner {
  private readonly scanBytes: (length: number) => number;
  /** The text's bytes and their padding. */
  private readonly bytes: Uint8Array;
  /** Where slices are copied (the bytes without the padding). */
  private readonly target: Buffer;
  private readonly overlap: number;
  private readonly all: number;

  /**
   * @param patterns - 1 to 30 patterns of 2 to 16 ASCII characters (U+0001–U+007F) each; bit `j`
   *   of {@link mayOccur}'s mask stands for `patterns[j]`.
   * @param options - See {@link AsciiPatternScannerOptions}.
   * @throws RangeError for any other patterns, or a `filterAt` entry that names no pattern or is
   *   not one of its characters after the first.
   */
  constructor(
    readonly patterns: readonly string[],
    options: AsciiPatternScannerOptions = {},
  ) {
    if (patterns.length === 0 || patterns.length > MAX_PATTERNS)
      throw new RangeError(`AsciiPatternScanner: 1 to ${MAX_PATTERNS} patterns, got ${patterns.length}`);
    for (const pattern of patterns)
      if (pattern.length < MIN_PATTERN_LENGTH || pattern.length > MAX_PATTERN_LENGTH || !isAscii(pattern))
        throw new RangeError(
          `AsciiPatternScanner: a pattern is ${MIN_PATTERN_LENGTH} to ${MAX_PATTERN_LENGTH} ASCII characters, got ${JSON.stringify(pattern)}`,
        );
    const groups = filterGroups(patterns, filterOffsets(patterns, options.filterAt ?? {}));
    const layout = operandLayout(patterns, groups);
    const { scan, memory } = instantiate(patterns, groups, layout);
    const page = new Uint8Array(memory.buffer);
    for (const [at, bytes] of layout.fill) page.set(bytes, at);
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
