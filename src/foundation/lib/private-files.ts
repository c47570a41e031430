/** Mode of every directory the gateway creates for its data (owner only). */
export const PRIVATE_DIR_MODE = 0o700;

/** Mode of every file the gateway creates in its data directory (owner read/write only). */
export const PRIVATE_FILE_MODE = 0o600;
