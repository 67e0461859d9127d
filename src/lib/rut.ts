/**
 * Uruguayan tax ids. RUT (DGI): 12 digits; positions 1-2 in 01..22, positions 3-8 not all zero,
 * positions 9-10 = "00"; the 12th is a mod-11 check digit over the first 11 with weights
 * 4,3,2,9,8,7,6,5,4,3,2 (check = 11 − sum mod 11; 11 → 0; 10 never valid).
 * C.I. (cédula de identidad): up to 7 digits + a check digit, weights 2,9,8,7,6,3,4, check = (10 − sum mod 10) mod 10.
 */
const RUT_WEIGHTS = [4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
const CI_WEIGHTS = [2, 9, 8, 7, 6, 3, 4];

/** Check digit of the first 11 RUT digits, or undefined when the mod-11 rule yields 10 (no valid RUT). */
export function rutCheckDigit(first11: string): number | undefined {
  const sum = first11.split('').reduce((acc, d, i) => acc + Number(d) * RUT_WEIGHTS[i], 0);
  const check = 11 - (sum % 11);
  if (check === 11) return 0;
  if (check === 10) return undefined;
  return check;
}

/** Why a RUT is invalid (Spanish, for the API), or undefined when it is valid. */
export function rutProblem(rut: string): string | undefined {
  if (!/^\d{12}$/.test(rut)) return 'El RUT debe tener exactamente 12 dígitos, sin puntos ni guiones.';
  const prefix = Number(rut.slice(0, 2));
  if (prefix < 1 || prefix > 22) return 'Los dos primeros dígitos del RUT deben estar entre 01 y 22.';
  if (rut.slice(2, 8) === '000000') return 'Los dígitos 3 a 8 del RUT no pueden ser todos cero.';
  if (rut.slice(8, 10) !== '00') return 'Los dígitos 9 y 10 del RUT deben ser 00.';
  const check = rutCheckDigit(rut.slice(0, 11));
  if (check === undefined || check !== Number(rut[11])) return 'El dígito verificador del RUT no es correcto.';
  return undefined;
}

export function isValidRut(rut: string): boolean {
  return rutProblem(rut) === undefined;
}

/** Builds a valid RUT from an 11-digit base, or undefined when that base has no valid check digit. */
export function completeRut(first11: string): string | undefined {
  const check = rutCheckDigit(first11);
  return check === undefined ? undefined : first11 + String(check);
}

/** C.I. check digit of the number without it (1 to 7 digits, left-padded with zeros). */
export function ciCheckDigit(number: string): number {
  const digits = number.padStart(7, '0');
  const sum = digits.split('').reduce((acc, d, i) => acc + Number(d) * CI_WEIGHTS[i], 0);
  return (10 - (sum % 10)) % 10;
}

/** Validates a C.I. written with or without dots and dash (e.g. "1.234.567-2" or "12345672"). */
export function isValidCi(ci: string): boolean {
  const clean = ci.replace(/[.\-\s]/g, '');
  if (!/^\d{2,8}$/.test(clean)) return false;
  return ciCheckDigit(clean.slice(0, -1)) === Number(clean.slice(-1));
}
