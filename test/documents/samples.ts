// Hand-written files of every text format, following their specifications, for the document tests.
export interface Sample {
  name: string;
  text: string;
  /** Parts of the source that must come back byte for byte. */
  kept: string[];
}

export const SAMPLES: Sample[] = [
  {
    name: 'notes.txt',
    text: 'The weather is nice today.\nWe go to the park.\n\n    The children play football.\n\n\nThank you for your help!\n',
    kept: ['\n\n    ', '\n\n\n'],
  },
  {
    name: 'guide.md',
    text:
      '---\ntitle: A short guide\nlayout: post\ntags: [one, two]\n---\n\n# The first chapter\n\n' +
      'This is a **good** house with a [small garden](https://example.com/garden?x=1 "Garden").\n' +
      'Call `make install` to build it.\n\n```sh\necho "do not translate me"\n```\n\n' +
      '- The first item\n- The *second* item\n\n> A quote from a book.\n\n| Name | Value |\n|------|------:|\n| The house | `42` |\n\n' +
      '    indented code block\n\n![A picture](img/house.png)\n',
    kept: ['title: ', 'layout: post', 'tags: [one, two]', '(https://example.com/garden?x=1 "Garden")', '`make install`',
      '```sh\necho "do not translate me"\n```', '|------|------:|', '`42`', '    indented code block', '![A picture](img/house.png)'],
  },
  {
    name: 'film.srt',
    text: '1\r\n00:00:01,000 --> 00:00:03,500\r\nThe house is <i>small</i>.\r\n\r\n2\r\n00:00:04,000 --> 00:00:06,250\r\nThe children play\r\nin the garden.\r\n\r\n',
    kept: ['1\r\n00:00:01,000 --> 00:00:03,500\r\n', '\r\n\r\n2\r\n00:00:04,000 --> 00:00:06,250\r\n'],
  },
  {
    name: 'film.vtt',
    text: 'WEBVTT - a film\n\nNOTE This note stays.\n\nintro\n00:00:01.000 --> 00:00:03.500 align:start position:10%\n<v Anna>The house is small.</v>\n\n00:00:04.000 --> 00:00:06.000\nThe children &amp; the dog play.\n',
    kept: ['WEBVTT - a film\n\nNOTE This note stays.\n\nintro\n00:00:01.000 --> 00:00:03.500 align:start position:10%\n', '<v Anna>', '\n\n00:00:04.000 --> 00:00:06.000\n'],
  },
  {
    name: 'page.html',
    text: '<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8"><title>The house</title><style>p { color: red }</style></head>\n<body>\n<h1>The garden</h1>\n<p>The house is <b>very</b> small.</p>\n<script>var x = "keep";</script>\n</body>\n</html>\n',
    kept: ['<!DOCTYPE html>\n', '<style>p { color: red }</style>', '<script>var x = "keep";</script>'],
  },
  {
    name: 'page.xhtml',
    text: '<?xml version="1.0" encoding="UTF-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="en" lang="en">\n<head><title>The house</title></head>\n<body><p>The house is <em>very</em> small.<br/>The garden is big.</p></body>\n</html>\n',
    kept: ['<?xml version="1.0" encoding="UTF-8"?>\n', '<br/>'],
  },
  {
    name: 'strings.xlf',
    text:
      '<?xml version="1.0" encoding="UTF-8"?>\n<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">\n' +
      '  <file source-language="en" datatype="plaintext" original="app.properties">\n    <body>\n' +
      '      <trans-unit id="greeting">\n        <source>The house is <g id="1">very</g> small.</source>\n      </trans-unit>\n' +
      '      <trans-unit id="code" translate="no">\n        <source>MAX_SIZE</source>\n      </trans-unit>\n' +
      '      <trans-unit id="old">\n        <source>The garden<x id="2"/> is big.</source>\n        <target>alt</target>\n      </trans-unit>\n' +
      '    </body>\n  </file>\n</xliff>\n',
    kept: ['<trans-unit id="code" translate="no">\n        <source>MAX_SIZE</source>\n      </trans-unit>', '<g id="1">', '<x id="2"/>'],
  },
  {
    name: 'strings2.xlf',
    text:
      '<?xml version="1.0" encoding="UTF-8"?>\n<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en">\n' +
      ' <file id="f1">\n  <unit id="u1">\n   <segment>\n    <source>The house is <pc id="1">very</pc> small.</source>\n   </segment>\n  </unit>\n </file>\n</xliff>\n',
    kept: ['<pc id="1">', ' <file id="f1">\n  <unit id="u1">\n   <segment>\n'],
  },
  {
    name: 'app.po',
    text:
      '# Translation of app.\nmsgid ""\nmsgstr ""\n"Project-Id-Version: app 1.0\\n"\n"Language: \\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n\n' +
      '#: src/main.c:10\n#, c-format\nmsgid "The house is small."\nmsgstr ""\n\n' +
      '#: src/main.c:20\nmsgid "One garden"\nmsgid_plural "Many gardens"\nmsgstr[0] ""\nmsgstr[1] ""\n\n#~ msgid "Old"\n#~ msgstr "Alt"\n',
    kept: ['#: src/main.c:10\n#, c-format\nmsgid "The house is small."\n', '#~ msgid "Old"\n#~ msgstr "Alt"\n', '"Project-Id-Version: app 1.0\\n"'],
  },
];
