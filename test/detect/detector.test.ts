import { beforeAll, describe, expect, it } from 'vitest';
import { createDetector, type LanguageDetector } from '../../src/detect/index.ts';
import { RELIABLE_CONFIDENCE } from '../../src/detect/detector.ts';
import { LANGUAGES, resolveLanguage } from '../../src/languages/catalog.ts';

let detector: LanguageDetector;
beforeAll(async () => {
  detector = await createDetector();
});

// Written for this test (not from FLORES).
const SENTENCES: [code: string, text: string][] = [
  ['en', 'The weather is lovely today, so we are taking the children to the beach after lunch.'],
  ['de', 'Ich habe gestern mit meiner Schwester im Garten Kaffee getrunken und Kuchen gegessen.'],
  ['fr', "Nous avons visité le musée pendant les vacances et c'était vraiment magnifique."],
  ['es', 'Mañana por la mañana vamos a comprar pan fresco en la panadería del barrio.'],
  ['it', 'Ieri sera abbiamo cenato in una piccola trattoria vicino alla stazione.'],
  ['pl', 'W przyszłym tygodniu jadę z rodzicami nad morze, jeśli pogoda będzie ładna.'],
  ['ru', 'Вчера вечером мы долго гуляли по парку и разговаривали о новой работе.'],
  ['uk', 'Сьогодні я купив свіжий хліб і молоко в магазині біля нашого будинку.'],
  ['el', 'Το καλοκαίρι πηγαίνουμε πάντα διακοπές σε ένα μικρό νησί με τους φίλους μας.'],
  ['zh-CN', '我们明天早上去公园散步，然后一起吃午饭。'],
  ['ja', '私は毎朝コーヒーを飲みながら新聞を読みます。'],
  ['ko', '저는 주말마다 친구들과 함께 도서관에서 공부합니다.'],
  ['hi', 'मैं हर सुबह अपने दादाजी के साथ बगीचे में टहलने जाता हूँ।'],
  ['th', 'วันนี้อากาศดีมาก พวกเราจะไปเที่ยวทะเลด้วยกันตอนบ่าย'],
  ['he', 'אני אוהב לקרוא ספרים בערב לפני השינה.'],
  ['ka', 'ხვალ დილით ჩვენ მთაში ვაპირებთ წასვლას.'],
  ['tr', 'Yarın sabah erkenden kalkıp arkadaşlarımla birlikte denize gideceğim.'],
  ['vi', 'Chúng tôi thường đi chợ vào buổi sáng để mua rau và trái cây tươi.'],
];

describe('detector', () => {
  it('answers und, confidence 0, not reliable, for text without letters', () => {
    for (const text of ['', '123', '!!!', '   ', '3.14 + 2 = 5.14', '😀🎉', '\n\t']) {
      const d = detector.detect(text);
      expect(d, JSON.stringify(text)).toEqual({ language: 'und', confidence: 0, isReliable: false, candidates: [] });
    }
  });

  it('answers a catalog code for any text with letters', () => {
    for (const text of ['a', 'xyzzy', 'Qwfpgj zxcvb', 'ß', 'Ωμέγα', 'ñandú 42']) {
      const d = detector.detect(text);
      expect(resolveLanguage(d.language)?.code, text).toBe(d.language);
      expect(d.candidates.length).toBeGreaterThan(0);
    }
  });

  it.each(SENTENCES)('detects %s', (code, text) => {
    const d = detector.detect(text);
    expect(d.language).toBe(code);
    expect(d.confidence).toBeGreaterThan(0.5);
  });

  it('calls a sentence reliable when no close neighbour competes', () => {
    // Spanish is left out on purpose: FLORES Asturian is close enough that a Spanish sentence may stay unsure.
    for (const [code, text] of SENTENCES.filter(([c]) => ['en', 'de', 'ru', 'el', 'zh-CN', 'ja', 'ko', 'th', 'he', 'ka', 'vi', 'pl'].includes(c))) {
      const d = detector.detect(text);
      expect(d.isReliable, code).toBe(true);
      expect(d.confidence).toBeGreaterThanOrEqual(RELIABLE_CONFIDENCE);
    }
  });

  it('returns candidates best first, the first equal to the answer, confidences in 0..1', () => {
    for (const [, text] of SENTENCES) {
      const d = detector.detect(text);
      expect(d.candidates[0]).toEqual({ language: d.language, confidence: d.confidence });
      for (let i = 1; i < d.candidates.length; i++) {
        expect(d.candidates[i]!.confidence).toBeLessThanOrEqual(d.candidates[i - 1]!.confidence);
      }
      const sum = d.candidates.reduce((a, c) => a + c.confidence, 0);
      for (const c of d.candidates) expect(c.confidence).toBeGreaterThanOrEqual(0);
      expect(sum).toBeLessThanOrEqual(1.0001);
      expect(new Set(d.candidates.map((c) => c.language)).size).toBe(d.candidates.length);
    }
  });

  it('never answers a variety whose script the text is not written in', () => {
    const scriptOf = new Map(LANGUAGES.map((l) => [l.code, l.script]));
    const thai = detector.detect('สวัสดีครับ ยินดีที่ได้รู้จัก');
    expect(thai.candidates.map((c) => scriptOf.get(c.language))).toEqual(thai.candidates.map(() => 'Thai'));
    const cyrillic = detector.detect('Добрый день');
    for (const c of cyrillic.candidates) expect(scriptOf.get(c.language)).toBe('Cyrl');
    const devanagari = detector.detect('नमस्ते');
    for (const c of devanagari.candidates) expect(scriptOf.get(c.language)).toBe('Deva');
  });

  it('reads code-mixed text by its own script, not by the Latin brand names in it', () => {
    // Written for this test: everyday messages with borrowed Latin words (each once read by its Latin letters).
    const mixed: [code: string, text: string][] = [
      ['ko', '오늘 team meeting은 cancel됐어요'],
      ['ko', 'Netflix에서 새 drama 봤어?'],
      ['he', 'הזמנתי iPhone חדש מ-Amazon'],
      ['zh-CN', '这个iPhone的battery不太行'],
      ['zh-CN', '周末一起去Starbucks吗'],
      ['ja', 'AmazonでNintendo Switchを注文した'],
      ['ja', 'Zoom meetingは3時からです'],
      ['ar', 'اشتريت iPhone جديد من Amazon'],
      ['ru', 'Я купил новый iPhone вчера'],
    ];
    for (const [code, text] of mixed) expect(detector.detect(text).language, text).toBe(code);
    // The other way round, a Latin sentence with one foreign word or name stays what it is — also a short one.
    expect(detector.detect('I bought a new שולחן for the living room today').language).toBe('en');
    expect(detector.detect('We ate sushi (寿司) in Tokyo yesterday evening with our friends').language).toBe('en');
    for (const text of ['Hi Αλέξανδρος, see you soon', 'My name is Ολυμπία', 'Meeting with Владимир', 'We love שלום']) {
      expect(detector.detect(text).language, text).toBe('en');
    }
  });

  it('reads decomposed letters (e + combining accent, as macOS sends them) as the composed ones', () => {
    for (const [code, text] of [
      ['yo', 'Ẹ kú àárọ̀. Báwo ni ẹ ṣe wà lónìí?'],
      ['vi', 'Ếch ở đồng ruộng kêu suốt đêm qua.'],
      ['fr', 'Nous avons visité le musée pendant les vacances et c\'était vraiment magnifique.'],
    ] as const) {
      const composed = detector.detect(text);
      expect(composed.language).toBe(code);
      expect(detector.detect(text.normalize('NFD'))).toEqual(composed);
    }
  });

  it('gives short text lower confidence than a full sentence', () => {
    const short = detector.detect('Haus');
    const long = detector.detect(SENTENCES[1]![1]);
    expect(short.confidence).toBeLessThan(long.confidence);
    expect(short.isReliable).toBe(false);
    const oneGreekLetter = detector.detect('λ');
    expect(oneGreekLetter.language).toBe('el');
    expect(oneGreekLetter.confidence).toBeLessThan(RELIABLE_CONFIDENCE);
  });

  it('does not turn repetition into certainty: a word said many times is not reliable, a sentence repeated stays its language', () => {
    for (const text of ['a'.repeat(50), Array(30).fill('asdf').join(' '), Array(300).fill('ok').join(' '), Array(50).fill('la').join(' ')]) {
      const d = detector.detect(text);
      expect(d.isReliable, text.slice(0, 20)).toBe(false);
      expect(d.confidence).toBeLessThan(0.5);
    }
    // Real text keeps its confidence, repeated or not.
    for (const [code, text] of SENTENCES.slice(0, 9)) {
      const twice = detector.detect(`${text} ${text}`);
      expect(twice.language).toBe(code);
      expect(twice.isReliable).toBe(true);
    }
  });

  it('reads styled letters (mathematical bold, full-width, circled) as the plain ones', () => {
    for (const text of ['𝐓𝐡𝐞 𝐰𝐞𝐚𝐭𝐡𝐞𝐫 𝐢𝐬 𝐥𝐨𝐯𝐞𝐥𝐲 𝐭𝐨𝐝𝐚𝐲, 𝐬𝐨 𝐰𝐞 𝐚𝐫𝐞 𝐭𝐚𝐤𝐢𝐧𝐠 𝐭𝐡𝐞 𝐜𝐡𝐢𝐥𝐝𝐫𝐞𝐧 𝐭𝐨 𝐭𝐡𝐞 𝐛𝐞𝐚𝐜𝐡.', 'Ｔｈｅ ｗｅａｔｈｅｒ ｉｓ ｌｏｖｅｌｙ ｔｏｄａｙ， ｓｏ ｗｅ ａｒｅ ｔａｋｉｎｇ ｔｈｅ ｃｈｉｌｄｒｅｎ ｔｏ ｔｈｅ ｂｅａｃｈ．']) {
      const d = detector.detect(text);
      expect(d.language).toBe('en');
      expect(d.isReliable).toBe(true);
    }
    expect(detector.detect('𝟏𝟐𝟑').language).toBe('und'); // styled digits are still no letters
  });

  it('tells simplified from traditional Chinese, Cantonese and Japanese apart', () => {
    expect(detector.detect('我们明天早上去公园散步，然后一起吃午饭。').language).toBe('zh-CN');
    // Traditional characters: never zh-CN. (Mandarin vs FLORES's formal written Cantonese is the weak pair.)
    const traditional = detector.detect('我們明天早上去公園散步，然後一起吃午飯。');
    expect(['zh-TW', 'yue']).toContain(traditional.language);
    expect(traditional.candidates.map((c) => c.language)).not.toContain('zh-CN');
    expect(detector.detect('佢哋今日唔喺度，我哋聽日再嚟啦。').language).toBe('yue');
    expect(detector.detect('ひらがなとカタカナを勉強しています。').language).toBe('ja');
  });

  it('shares one model between detectors', async () => {
    const other = await createDetector();
    expect(other.detect(SENTENCES[0]![1])).toEqual(detector.detect(SENTENCES[0]![1]));
  });
});
