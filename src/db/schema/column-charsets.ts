// Columns whose character set ZoneMinder pins, which the information_schema dump does not
// show (COLUMN_TYPE carries no charset). ZoneMinder declares these two latin1 with a binary
// collation so that user names and tag names compare exactly: 'Admin' and 'admin' are two
// users, and UC_Username / Tags.Name stay unique per spelling. Logins rely on it: names match
// exactly unless ZM_CASE_INSENSITIVE_USERNAMES asks for LOWER() = LOWER().
export const ZONEMINDER_COLUMN_CHARSETS: ReadonlyMap<string, { charset: string; collation: string }> = new Map([
  ['Users.Username', { charset: 'latin1', collation: 'latin1_bin' }],
  ['Tags.Name', { charset: 'latin1', collation: 'latin1_bin' }],
]);
