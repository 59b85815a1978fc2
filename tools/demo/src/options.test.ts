import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseArgs } from 'node:util';
import { demoOptions, helpText, parserOptions, usageText } from './options.ts';

test('--help has a line for every option the parser takes, with its meaning and its default', () => {
  const options = demoOptions('/work');
  const help = helpText(options).split('\n');
  for (const [name, o] of Object.entries(options)) {
    const line = help.find((l) => l.trimStart().startsWith(`--${name} `) || l.trim() === `--${name}`);
    assert.ok(line, `no line for --${name} in:\n${help.join('\n')}`);
    assert.ok(line.includes(o.meaning), line);
    if (o.type === 'string') assert.match(line, /\(default [^)]+\)$/, line);
  }
});

test('the defaults --help shows are the ones the parser uses', () => {
  const options = demoOptions('/work');
  const { values } = parseArgs({
    args: [],
    options: parserOptions(options),
  });
  assert.equal(values['workers'], '2');
  assert.equal(values['dir'], '/work/.tmp/demo');
  const help = helpText(options);
  assert.match(help, /--workers N +worker processes to start \(default 2\)/);
  assert.match(help, /--dir DIR +.* \(default \.tmp\/demo\)/);
  assert.match(help, /--timeout-seconds N +.* \(default 120\)/);
});

test('the usage line names every option, and --help starts with it', () => {
  const options = demoOptions('/work');
  const usage = usageText(options);
  for (const name of Object.keys(options)) assert.ok(usage.includes(`[--${name}`), `--${name} in:\n${usage}`);
  assert.ok(helpText(options).startsWith(`${usage}\n`));
});
