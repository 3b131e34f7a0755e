// Letters in "styled" forms — 𝐛𝐨𝐥𝐝 and 𝑖𝑡𝑎𝑙𝑖𝑐 mathematical letters (social-media "fonts"), ｆｕｌｌｗｉｄｔｈ Latin, Ⓒⓘⓡⓒⓛⓔⓓ and
// 🄰 squared letters — are the plain letters to a reader, but Unicode gives the mathematical ones no script (the
// detector answered `und`) and the model never saw any of them in training. NFKC maps each to its plain letter;
// only these blocks are folded, so the scripts the model was trained on keep their exact code points.
const STYLED = /[\u{1D400}-\u{1D7FF}\uFF21-\uFF3A\uFF41-\uFF5A\u24B6-\u24E9\u{1F130}-\u{1F189}]/u;
const STYLED_ALL = new RegExp(STYLED.source, 'gu');

export function plainLetters(text: string): string {
  return STYLED.test(text) ? text.replace(STYLED_ALL, (c) => c.normalize('NFKC')) : text;
}
