/**
 * The HTML report's stylesheet, inlined into the file (the report loads nothing). Each kind of
 * call has its own colour, and every colour is paired with a text label in the page, so the
 * report reads without colour too.
 */
export const HTML_REPORT_CSS = `
:root {
  --ink: #1f2328; --muted: #59636e; --line: #d0d7de; --page: #f6f8fa;
  --new-bg: #ffffff; --new-line: #b8bec7;
  --repeat-bg: #e6efff; --repeat-line: #7aa5f0;
  --same-bg: #c9dcff; --same-line: #2f6fe0;
  --cycle-bg: #d3f2ea; --cycle-line: #0f8b77;
  --warn-bg: #ffe08a; --warn-line: #b7791f;
  --block-bg: #c62828; --block-line: #8e1b1b;
  --abort-bg: #4a148c; --abort-line: #2e0a5a;
  --loop-mark: #c62828;
}
* { box-sizing: border-box; }
body { margin: 0; padding: 16px 24px 48px; font: 14px/1.4 system-ui, "DejaVu Sans", "Liberation Sans", sans-serif; color: var(--ink); background: var(--page); }
h1 { font-size: 20px; margin: 0 0 4px; }
h2 { font-size: 15px; margin: 0; display: inline; word-break: break-all; }
h3 { font-size: 15px; margin: 24px 0 8px; }
p { margin: 4px 0; }
code, .hash { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px; }
.muted { color: var(--muted); }
.legend { display: flex; flex-wrap: wrap; gap: 6px 14px; list-style: none; padding: 0; margin: 10px 0; }
.legend li { display: flex; align-items: center; gap: 6px; }
.swatch { display: inline-block; width: 22px; height: 14px; border: 2px solid var(--new-line); border-radius: 3px; background: var(--new-bg); }
.swatch.repeat { background: var(--repeat-bg); border-color: var(--repeat-line); }
.swatch.same-result { background: var(--same-bg); border-color: var(--same-line); }
.swatch.cycle { background: var(--cycle-bg); border-color: var(--cycle-line); }
.swatch.in-loop { box-shadow: inset 0 -5px 0 var(--loop-mark); }
.swatch.warn { background: var(--warn-bg); border-color: var(--warn-line); }
.swatch.block { background: var(--block-bg); border-color: var(--block-line); }
.swatch.abort { background: var(--abort-bg); border-color: var(--abort-line); }
table { border-collapse: collapse; background: #fff; margin: 8px 0; }
th, td { border: 1px solid var(--line); padding: 3px 8px; text-align: left; vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.message { max-width: 60em; }
.run { background: #fff; border: 1px solid var(--line); border-radius: 6px; margin: 12px 0; padding: 8px 12px; }
.run > details > summary { cursor: pointer; }
.summary-line { display: block; margin: 4px 0 0; }
.summary-line .blocked { color: var(--block-bg); font-weight: 600; }
.summary-line .warned { color: #8a5a00; font-weight: 600; }
.summary-line .aborted { color: var(--abort-bg); font-weight: 600; }
.timeline { display: flex; flex-wrap: wrap; gap: 6px; list-style: none; padding: 0; margin: 10px 0; }
.call { width: 10.5em; min-height: 5.6em; padding: 4px 6px 6px; border: 2px solid var(--new-line); border-radius: 5px; background: var(--new-bg); overflow: hidden; }
.call .head { display: flex; justify-content: space-between; gap: 4px; font-size: 12px; }
.call .index { font-weight: 700; }
.call .tool { display: block; font-weight: 600; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.call .hash { display: block; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.labels { display: flex; flex-wrap: wrap; gap: 3px; margin-top: 3px; }
.label { font-size: 11px; font-weight: 700; padding: 0 4px; border-radius: 3px; border: 1px solid currentColor; max-width: 100%; overflow-wrap: anywhere; }
.call.repeat { background: var(--repeat-bg); border-color: var(--repeat-line); }
.call.same-result { background: var(--same-bg); border-color: var(--same-line); }
.call.cycle { background: var(--cycle-bg); border-color: var(--cycle-line); }
.call.warn { background: var(--warn-bg); border-color: var(--warn-line); }
.call.block { background: var(--block-bg); border-color: var(--block-line); color: #fff; }
.call.abort { background: var(--abort-bg); border-color: var(--abort-line); color: #fff; }
.call.block .muted, .call.abort .muted { color: #f3f3f3; }
.call.in-loop { box-shadow: inset 0 -5px 0 var(--loop-mark); }
.call.block.in-loop, .call.abort.in-loop { box-shadow: inset 0 -5px 0 #ffd54f; }
.label.repeat { color: #1a4fb0; } .label.same-result { color: #123a85; } .label.cycle { color: #0a5f51; }
.label.loop { color: var(--loop-mark); } .label.warn { color: #7a4d00; }
.call.block .label, .call.abort .label { color: #fff; }
.label.block { background: #fff; color: var(--block-bg) !important; }
.label.abort { background: #fff; color: var(--abort-bg) !important; }
.gap, .arm { align-self: center; padding: 4px 8px; border: 2px dashed var(--line); border-radius: 5px; color: var(--muted); background: #fff; }
.arm { border-color: var(--abort-bg); color: var(--abort-bg); font-weight: 600; }
.note { color: var(--muted); font-style: italic; }
`;
