// LIKE/ILIKE patterns from user text: its wildcards (and the escape character) match themselves.
export const likeEscape = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);
