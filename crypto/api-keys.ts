// API key generation and the stored hash (the key scheme is described in domain/api-keys.ts):
// Node's crypto, so not in domain/, which workflow code imports.
import { hash, randomBytes } from 'node:crypto';
import { ALPHABET, KIND_PREFIX, SECRET_LENGTH, type KeyKind, type Mode } from '../domain/api-keys';

export function generateKey(kind: KeyKind, mode: Mode): string {
  // Rejection sampling keeps every character uniform over the 62-character alphabet.
  let secret = '';
  while (secret.length < SECRET_LENGTH) {
    for (const byte of randomBytes(SECRET_LENGTH)) {
      if (byte < 248 && secret.length < SECRET_LENGTH) secret += ALPHABET[byte % 62];
    }
  }
  return `${KIND_PREFIX[kind]}_${mode}_${secret}`;
}

export function hashKey(key: string): string {
  return hash('sha256', key);
}
