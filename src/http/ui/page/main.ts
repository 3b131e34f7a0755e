// The page at `/`: wires the controls of index.html to the actions. No framework: the page is small and must run
// offline under a strict Content-Security-Policy (no inline scripts or styles). A file per part: dom.ts (the
// elements), key-field.ts, language-picker.ts / language-choice.ts, actions.ts, live-translate.ts, feedback.ts.
import { copyResult, detectLines, refreshUsage, signup, swapped, translate, usage } from './actions.ts';
import { callApi, type SettingsResponse } from './api.ts';
import { ui } from './dom.ts';
import { setupDocuments, showHistory } from './documents-panel.ts';
import { isBusy, retryLast, run, say, whenIdle, whenRefusedKey } from './feedback.ts';
import { refuse, setSharedKey, setupKeyField, sharedKey, onKeyChange, usingSharedKey } from './key-field.ts';
import { clearDetected, fitTarget, loadLanguages, savePair, sourcePicker, swapLanguages, targetChosen, targetPicker } from './language-choice.ts';
import { learnRate, setupLiveTranslate } from './live-translate.ts';
import { formatCount } from './messages.ts';
import { setupTheme } from './theme.ts';
import { setupMemoryChoice } from './memory-choice.ts';
import { fitModelKind, setupModelKind } from './model-kind.ts';

const USAGE_LATER =
  'Usage appears with your first translation (“Refresh usage” reads it now; like every call, it counts as one of the key’s requests per minute).';
const SHARED_USAGE_LATER = 'The shared key’s usage appears with the first translation.';

function updateCount(): void {
  let n = 0;
  for (const _ of ui.text.value) n++;
  ui.charCount.textContent = `${formatCount(n)} ${n === 1 ? 'character' : 'characters'}`;
}

/** Another key (or none): its usage and limit are unknown until its next answer; the shared key's are known. */
function keyChanged(): void {
  const shared = usingSharedKey() ? sharedKey() : null;
  usage.clear(shared ? SHARED_USAGE_LATER : ui.key.value.trim() ? USAGE_LATER : undefined);
  learnRate(shared ? shared.requestsPerMinute : undefined);
}

setupTheme(ui.themeToggle);
setupKeyField();
setupDocuments();
setupMemoryChoice(onKeyChange);
whenRefusedKey(refuse);
onKeyChange(keyChanged);
const live = setupLiveTranslate(() => translate(true), isBusy);
whenIdle(live.idle);
ui.memory.addEventListener('change', () => live.changed());
setupModelKind(() => live.changed());
/** The Quality / Speed choice follows the pair. */
const fitModel = (): void => fitModelKind(sourcePicker.value, targetPicker.value);

ui.signup.addEventListener('click', () => void signup());
ui.usageRefresh.addEventListener('click', () => void refreshUsage());
ui.translate.addEventListener('click', () => void translate());
ui.detect.addEventListener('click', () => void detectLines());
ui.copy.addEventListener('click', () => void copyResult());
ui.retry.addEventListener('click', retryLast);
ui.swap.addEventListener('click', () => {
  const refused = swapLanguages();
  if (refused) {
    say(refused);
    return;
  }
  swapped();
  fitModel();
  updateCount();
  live.changed();
});
sourcePicker.onChange(() => {
  clearDetected();
  // The target stays one the models reach from the new source, never the source itself.
  fitTarget();
  fitModel();
  savePair();
  live.changed();
});
targetPicker.onPick(targetChosen);
targetPicker.onChange(() => {
  fitModel();
  savePair();
  live.changed();
});
for (const radio of Array.from(document.querySelectorAll<HTMLInputElement>('input[name="format"]'))) radio.addEventListener('change', live.changed);
ui.text.addEventListener('input', updateCount);
document.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    void translate();
  }
});

updateCount();
keyChanged();
void run('Loading languages…', async () => {
  // Both without a key (the page's own, counted per address): the pickers, and whether a shared key lets the page
  // translate without one (DRAGOMAN_UI_KEY).
  const [settings] = await Promise.all([callApi<SettingsResponse>('/ui/settings', null), loadLanguages()]);
  setSharedKey(settings.body.data.sharedKey);
  fitModel();
  // The demo models (no model installed) translate simple sentences only: said above everything, with how to install real ones.
  const demo = settings.body.data.demo;
  const banner = document.getElementById('demo-banner');
  if (demo && banner) {
    banner.textContent = demo.note;
    banner.hidden = false;
  }
}).then(() => {
  // A key kept from before: the documents it sent are listed again (one of its requests).
  if (ui.key.value.trim() !== '') void showHistory(false);
});
