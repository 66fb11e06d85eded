import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { createInterface } from 'node:readline';
import JSON5 from 'json5';
import { decodeJaeger, jaegerTraces } from './jaeger.js';
import { decodeOtlp, otlpResourceSpans } from './otlp.js';
import { decodeTrajectoryLine, isTrajectoryLine } from './trajectory.js';
import type { DecodedSpan, InputFormat, TrajectoryCall } from './types.js';

/**
 * Reading one input file: format detection, streaming line reads, and the document fallback.
 *
 * - The first non-blank line decides the layout. If it is a complete JSON value the file is
 *   read line by line with `readline` over a file stream (JSONL / NDJSON: trajectories, the
 *   collector's file exporter), so memory does not grow with the file.
 * - Otherwise the file is one (pretty-printed) JSON document: the rest of the same stream is
 *   collected and parsed whole, which is limited to {@link MAX_DOCUMENT_BYTES}. Every file is
 *   read once, so a pipe or FIFO (`/dev/stdin`) works as a file does.
 * - The format is detected from the first parsed value unless forced.
 */

/** Largest single-document (non-line) file read: V8 strings top out near 512 MiB. */
export const MAX_DOCUMENT_BYTES = 400 * 1024 * 1024;

/** What a file turned out to be: a format, a trajectory index (skipped), or unknown. */
export type DetectedKind = InputFormat | 'index';

/** Receives a file's contents as they are decoded. */
export interface InputSink {
  /** Called once, when the format is known (before any span or call). */
  format(format: DetectedKind, layout: 'lines' | 'document'): void;
  span(span: DecodedSpan): void;
  call(call: TrajectoryCall): void;
  problem(message: string, line?: number): void;
  /** The file holds no JSON at all (empty or blank); not an error. With a forced format, `format` is called instead. */
  empty?(): void;
}

/** Detects the format of a parsed value. */
export function detectFormat(value: unknown): DetectedKind | undefined {
  if (otlpResourceSpans(value)) return 'otlp';
  if (jaegerTraces(value)) return 'jaeger';
  if (isTrajectoryLine(value)) return 'trajectory';
  if (typeof value === 'object' && value !== null && Array.isArray((value as { trajectories?: unknown }).trajectories))
    return 'index';
  return undefined;
}

const LINE_EXTENSIONS = new Set(['.jsonl', '.ndjson']);

function parse(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}

/** Why a parsed value could not be decoded or replayed, for a problem message. */
function undecodable(error: unknown): string {
  if (error instanceof RangeError && /call stack/i.test(error.message))
    return `nested too deeply to decode (${error.message})`;
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** A file-system error as a problem message (`cannot read: …`). */
export function describeReadError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'cannot read: file not found';
  if (code === 'EACCES' || code === 'EPERM') return 'cannot read: permission denied';
  if (code === 'EISDIR') return 'cannot read: is a directory';
  return `cannot read: ${(error as Error).message}`;
}

/**
 * 1-based line of a JSON syntax error: from V8's message when it has a position, else by
 * re-parsing with JSON5 (whose errors carry a line number; only done on failure).
 */
function lineOfParseError(text: string, message: string): number | undefined {
  const explicit = /line (\d+)/.exec(message);
  if (explicit) return Number(explicit[1]);
  const position = /position (\d+)/.exec(message);
  if (position) {
    const offset = Number(position[1]);
    let line = 1;
    for (let i = 0; i < offset && i < text.length; i += 1) if (text.charCodeAt(i) === 10) line += 1;
    return line;
  }
  try {
    JSON5.parse(text);
  } catch (error) {
    const { lineNumber } = error as { lineNumber?: number };
    if (typeof lineNumber === 'number') return lineNumber;
  }
  return undefined;
}

const UNKNOWN_FORMAT =
  'unknown format: expected OTLP JSON ({resourceSpans: [...]}), Jaeger JSON ({data: [{spans}]}) or trajectory JSONL ({step, tool, args, result} per line); use --format to force one';

/**
 * Reads one file into `sink`. Never throws: unreadable files, unknown formats and malformed
 * lines go to `sink.problem` (with the line number), and reading continues where it can.
 */
export async function readInputFile(file: string, forced: InputFormat | undefined, sink: InputSink): Promise<void> {
  let format: DetectedKind | undefined = forced;
  let announced = false;
  const announce = (layout: 'lines' | 'document') => {
    if (!announced && format !== undefined) {
      announced = true;
      sink.format(format, layout);
    }
  };
  /**
   * Routes one parsed value; returns false when reading should stop. A value that cannot be
   * decoded or replayed is a problem of its own (its line, or the document), never the end of
   * the reading: the file's other lines, and the other files, are still read.
   */
  const handle = (value: unknown, line: number | undefined, layout: 'lines' | 'document'): boolean => {
    try {
      return route(value, line, layout);
    } catch (error) {
      sink.problem(`skipped: ${undecodable(error)}`, line);
      return true;
    }
  };
  const route = (value: unknown, line: number | undefined, layout: 'lines' | 'document'): boolean => {
    if (format === undefined) {
      format = detectFormat(value);
      if (format === undefined) {
        sink.problem(UNKNOWN_FORMAT, line);
        return false;
      }
    }
    announce(layout);
    switch (format) {
      case 'index':
        return false;
      case 'otlp':
        if (!decodeOtlp(value, sink, line)) sink.problem('not an OTLP traces object (no resourceSpans)', line);
        return true;
      case 'jaeger':
        if (!decodeJaeger(value, sink, line)) sink.problem('not a Jaeger trace export (no data[].spans)', line);
        return true;
      case 'trajectory': {
        if (layout === 'document') {
          sink.problem('a trajectory file has one JSON object per line, not one document', line);
          return false;
        }
        const decoded = decodeTrajectoryLine(value, line ?? 0);
        if (typeof decoded === 'string') sink.problem(`malformed trajectory line: ${decoded}`, line);
        else sink.call(decoded);
        return true;
      }
    }
  };

  let layout: 'lines' | 'document' | undefined =
    forced === 'trajectory' || LINE_EXTENSIONS.has(extname(file).toLowerCase()) ? 'lines' : undefined;
  const stream = createReadStream(file, { encoding: 'utf8' });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let lineNumber = 0;
  let sawContent = false;
  /** The lines of a multi-line document, collected from the same stream (a pipe is read once). */
  let documentLines: string[] | undefined;
  let documentLength = 0;
  try {
    for await (const raw of lines) {
      lineNumber += 1;
      const text = lineNumber === 1 && raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
      if (documentLines !== undefined) {
        documentLength += text.length + 1;
        if (documentLength > MAX_DOCUMENT_BYTES) {
          sink.problem(tooLarge());
          return;
        }
        documentLines.push(text);
        continue;
      }
      if (text.trim() === '') continue;
      sawContent = true;
      const parsed = parse(text);
      if (layout === undefined) {
        if (!parsed.ok) {
          layout = 'document';
          const problem = await documentSizeProblem(file);
          if (problem !== undefined) {
            sink.problem(problem);
            return;
          }
          // Blank lines before it keep the document's line numbers those of the file.
          documentLines = new Array<string>(lineNumber - 1).fill('');
          documentLines.push(text);
          documentLength = lineNumber + text.length;
          continue;
        }
        layout = 'lines';
      }
      if (!parsed.ok) {
        sink.problem(`malformed JSON line: ${parsed.message}`, lineNumber);
        continue;
      }
      if (!handle(parsed.value, lineNumber, 'lines')) break;
    }
  } catch (error) {
    sink.problem(describeReadError(error));
    return;
  } finally {
    lines.close();
    stream.destroy();
  }
  if (!sawContent) {
    // A run without tool calls (e.g. a trajectory with 0 steps) is a legitimate empty file.
    if (format !== undefined) announce('lines');
    else sink.empty?.();
    return;
  }
  if (layout === 'lines' || documentLines === undefined) {
    if (format === undefined) sink.problem('no valid JSON line found');
    return;
  }

  // One JSON document spanning several lines.
  // Emptied as it is joined: the lines are not kept beside the text while it is parsed.
  const text = documentLines.splice(0).join('\n');
  const parsed = parse(text);
  if (!parsed.ok) {
    sink.problem(`malformed JSON: ${parsed.message}`, lineOfParseError(text, parsed.message));
    return;
  }
  handle(parsed.value, undefined, 'document');
}

/**
 * Why a file cannot be read as one document, known before reading it: a regular file larger
 * than {@link MAX_DOCUMENT_BYTES}. A pipe or other stream has no size to tell: it is counted as
 * it is read.
 */
async function documentSizeProblem(file: string): Promise<string | undefined> {
  const info = await stat(file);
  return info.isFile() && info.size > MAX_DOCUMENT_BYTES ? tooLarge(info.size) : undefined;
}

function tooLarge(size?: number): string {
  const of = size === undefined ? '' : ` of ${Math.round(size / 1048576)} MiB`;
  return `a single JSON document${of} is larger than the ${MAX_DOCUMENT_BYTES / 1048576} MiB document limit; export one object per line (the collector's file exporter does) to stream it`;
}
