// Run by amx.test.ts in a process of its own (what DRAGOMAN_AMX does cannot be undone in a process):
//   guard            the seccomp filter alone: the request onnxruntime makes, after it
//   session-first    an onnxruntime session, then DRAGOMAN_AMX=off
//   engine on|off    an int8 engine over tiny-marian-en-de with DRAGOMAN_AMX, and its translations
// Prints one JSON line.
import { join } from 'node:path';
import ort from 'onnxruntime-node';
import { applyAmxSetting, loadAmxGuard } from '../../src/engine/runtime/amx.ts';
import { FIXTURES, engineOver, readDev, tempDir, linkModel, type MarianDevRow } from './helpers.ts';

const [mode, setting] = process.argv.slice(2);
const guard = loadAmxGuard();
const permitted = () => (typeof guard === 'string' ? null : guard.tilePermitted());
const print = (o: object) => console.log(JSON.stringify(o));

if (mode === 'guard') {
  if (typeof guard === 'string') throw new Error(guard);
  const before = guard.tilePermitted();
  const denied = guard.denyTilePermission();
  print({ before, denied, deniedAgain: guard.denyTilePermission(), request: guard.requestTilePermission(), after: guard.tilePermitted() });
} else if (mode === 'session-first') {
  await ort.InferenceSession.create(join(FIXTURES, 'tiny-marian-en-de/onnx/encoder_model_quantized.onnx'));
  print({ status: applyAmxSetting(false), permitted: permitted() });
} else if (mode === 'engine') {
  const dir = tempDir();
  linkModel(join(dir.path, 'opus-mt-en-de'), 'tiny-marian-en-de');
  const engine = await engineOver(dir.path, { DRAGOMAN_PRECISION: 'int8', DRAGOMAN_AMX: setting!, DRAGOMAN_WORKERS: '1' });
  const texts = readDev<MarianDevRow>('tiny-marian-en-de').slice(0, 60).map((d) => d.src);
  const batch = await engine.translate(texts, 'eng_Latn', 'deu_Latn');
  const alone = await engine.translate(texts.slice(0, 3), 'eng_Latn', 'deu_Latn', { beams: 4 });
  await engine.close();
  dir.remove();
  print({ status: engine.amx, permitted: permitted(), greedy: batch.translations, beam4: alone.translations });
} else throw new Error(`unknown mode ${mode}`);
