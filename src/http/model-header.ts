// X-Dragoman-Model on every translate response of every surface: the models that served it, a pivot as `a>b`, each
// route once in the order first used; `none` when no model ran (source = target, nothing to translate).
export const MODEL_HEADER = 'x-dragoman-model';

export function modelHeaderValue(routes: readonly (readonly string[])[]): string {
  const names = [...new Set(routes.map((r) => r.join('>')))];
  return names.length ? names.join(', ') : 'none';
}
