// How widely each variety is written, as a prior for SHORT texts only (classify.ts fades it out as the text grows).
//
// A word or two ("Hello", "Obrigado") carries little evidence, and the model has seen every variety as equally
// likely; real input, though, is far more often English or Portuguese than Bambara or Galician. So for short text
// the prior odds of two varieties are (speakers_a / speakers_b) ^ POPULARITY_EXPONENT.
//
// Source: total speakers (first + second language), millions, rounded, from Ethnologue 2023 as summarised in
// Wikipedia's "List of languages by total number of speakers" and the languages' own Wikipedia articles
// (retrieved from memory of those pages, so read them as orders of magnitude, which is all a prior needs).
// Exceptions, because the prior is about WRITTEN text: the spoken Arabic varieties are counted at 5 (their speakers
// mostly write Modern Standard Arabic, which gets the total), Cantonese at 10 (usually written as standard
// Chinese), Chinese is split between simplified (zho_Hans) and traditional (zho_Hant), and second scripts of a
// language (ace_Arab, arb_Latn, bjn_Arab, kas_Deva, knc_Arab, min_Arab, taq_Tfng) at 0.5, and Japanese at 10
// (not 123): the prior only matters for Han text without kana (kana alone decide Japanese), which is rarely Japanese.
// Varieties not listed: DEFAULT_SPEAKERS.
export const DEFAULT_SPEAKERS = 2;
export const POPULARITY_EXPONENT = 0.5;

export const SPEAKERS_MILLIONS: Readonly<Record<string, number>> = {
  eng_Latn: 1500, zho_Hans: 1100, zho_Hant: 40, hin_Deva: 600, spa_Latn: 560, arb_Arab: 330, fra_Latn: 310,
  ben_Beng: 270, por_Latn: 260, rus_Cyrl: 255, urd_Arab: 230, ind_Latn: 200, deu_Latn: 135, jpn_Jpan: 10,
  mar_Deva: 99, tel_Telu: 96, tur_Latn: 90, tam_Taml: 86, vie_Latn: 85, tgl_Latn: 83, kor_Hang: 82,
  pes_Arab: 75, hau_Latn: 79, swh_Latn: 72, jav_Latn: 68, ita_Latn: 68, zsm_Latn: 60, guj_Gujr: 62,
  tha_Thai: 61, kan_Knda: 59, amh_Ethi: 58, bho_Deva: 52, pan_Guru: 50, yor_Latn: 46, gaz_Latn: 45,
  mya_Mymr: 43, pbt_Arab: 40, sun_Latn: 42, pol_Latn: 41, lin_Latn: 40, ory_Orya: 39, mal_Mlym: 38,
  fuv_Latn: 37, mai_Deva: 34, ukr_Cyrl: 33, uzn_Latn: 32, ibo_Latn: 31, npi_Deva: 32, ron_Latn: 28,
  zul_Latn: 28, plt_Latn: 25, nld_Latn: 25, azj_Latn: 24, som_Latn: 22, wol_Latn: 22, snd_Arab: 32,
  khm_Khmr: 18, sin_Sinh: 17, afr_Latn: 17, kaz_Cyrl: 16, asm_Beng: 15, sna_Latn: 15, kmr_Latn: 15,
  ceb_Latn: 28, xho_Latn: 19, nya_Latn: 14, bam_Latn: 14, ell_Grek: 13, hun_Latn: 13, swe_Latn: 13,
  hat_Latn: 13, kin_Latn: 12, srp_Cyrl: 12, lug_Latn: 11, ces_Latn: 11, mag_Deva: 13, hne_Deva: 16,
  awa_Deva: 38, ilo_Latn: 10, cat_Latn: 10, aka_Latn: 11, twi_Latn: 9, heb_Hebr: 9, tgk_Cyrl: 9,
  run_Latn: 9, bul_Cyrl: 8, quy_Latn: 8, tir_Ethi: 9, nso_Latn: 5, tsn_Latn: 8, sot_Latn: 6,
  kik_Latn: 8, luo_Latn: 5, ckb_Arab: 6, hrv_Latn: 6, slk_Latn: 7, als_Latn: 7, tuk_Latn: 7,
  dan_Latn: 6, fin_Latn: 5.8, nob_Latn: 5, bel_Cyrl: 5, kir_Cyrl: 5, hye_Armn: 5, khk_Cyrl: 6,
  grn_Latn: 6.5, uig_Arab: 10, azb_Arab: 15, tat_Cyrl: 5, ewe_Latn: 7, war_Latn: 3, lao_Laoo: 8,
  kat_Geor: 3.7, lit_Latn: 3, glg_Latn: 3, bos_Latn: 3, slv_Latn: 2.5, mkd_Cyrl: 2, lvs_Latn: 2,
  est_Latn: 1.2, gle_Latn: 1.7, eus_Latn: 0.9, cym_Latn: 0.9, mlt_Latn: 0.5, isl_Latn: 0.4,
  ltz_Latn: 0.4, nno_Latn: 0.7, fao_Latn: 0.07, gla_Latn: 0.06, epo_Latn: 1, ast_Latn: 0.4,
  lim_Latn: 1.3, dyu_Latn: 3, yue_Hant: 10, prs_Arab: 15,
  arz_Arab: 5, ary_Arab: 5, aeb_Arab: 5, apc_Arab: 5, ajp_Arab: 5, acm_Arab: 5, acq_Arab: 5, ars_Arab: 5,
  ace_Arab: 0.5, arb_Latn: 0.5, bjn_Arab: 0.5, kas_Deva: 0.5, knc_Arab: 0.5, min_Arab: 0.5, taq_Tfng: 0.5,
};
