// Genre names to ids (seed §5); others not shown.
export const GENRE_IDS = {
  romance: "21",
  bl: "22",
  erotic: "12",
  drama: "07",
  gl: "27",
  action: "24",
  fantasy: "05",
  thriller: "23",
} as const;

export const GENRE_LABELS: Record<string, string> = {
  "21": "로맨스",
  "22": "BL",
  "12": "성인",
  "07": "드라마",
  "27": "GL",
  "24": "액션",
  "05": "판타지",
  "23": "스릴러",
};

/** FAQ category to cid (seed §5). */
export const FAQ_CID = { privacy: "01000", payment: "02000", comic: "03100", novel: "03300", etc: "etc" } as const;
