/** Long OpenAPI descriptions of the price book endpoints (kept apart so the routes file stays thin). */
import { PRICE_IND_FACT } from './price-books.model.js';

export const createDescription = [
  'Creates a version of a price book (issue 34; the spec names the path, the record is designed here). The same `codigo` makes a new',
  'version (1, 2, …); versions are immutable. Two versions of one code never have overlapping validity (`vigenteDesde`..`vigenteHasta`,',
  'both inclusive, `vigenteHasta` null = open-ended): an overlap is 409 `LISTA_PRECIOS_SUPERPUESTA` naming the other version; end it',
  'first with `POST /api/v1/price-books/{codigo}/versiones/{version}/cerrar`. Needs `administrador`; `idEmpresa` may be omitted when the',
  'caller belongs to exactly one company.',
  '',
  '**Decimals are JSON strings** (`"0.50"`), never JSON numbers (400 VALIDACION naming the field): a price book is billed for years and a',
  'binary float could alter a price before it is stored. Unit prices have at most 6 decimals (DGI PrecioUnitario), tier bounds and',
  'package sizes 3 (DGI Cantidad), minimums 2. Values are answered exactly as written.',
  '',
  '**Models** (`precios[].modelo`): `estandar` (`precioUnitario` per unit); `escalonado` (graduated: each unit at the price of its tier);',
  '`volumen` (every unit at the price of the tier the period\'s total falls in); `paquete` (every started package of `paquete.tamano` units',
  'costs `paquete.precio`: 1001 units in packages of 1000 are 2 packages). Tiers cover (desde, hasta]: the first starts at "0", each next',
  'one where the previous ends, only the last is open (`hasta: null`); otherwise 400 `PRECIO_TRAMOS_INVALIDOS`. A field of another model',
  '→ 400 `PRECIO_MODELO_INVALIDO`.',
  '',
  '**Dimensions**: a price may apply to exact dimension values (`{"region": "norte"}`); usage with other values is billed by the metric\'s',
  'price without dimensions (the fallback), or not billed and reported when there is none. All dimensioned prices of one metric use the',
  'same keys (400 `PRECIO_DIMENSIONES_INVALIDAS`); one metric with the same dimensions twice → 400 `PRECIO_DUPLICADO`.',
  '',
  '**Minimums**: `precios[].minimo` (per price and period) and `minimoPeriodo` (the whole book per period, a minimum commitment); a shortfall',
  'is billed on its own CFE line with its own `indicadorFacturacion` and `nombreItem`.',
  '',
  `**Fiscal data**: each price carries the CFE line's \`indicadorFacturacion\` (IndFact, BRIEF 2.6; allowed: ${PRICE_IND_FACT.join(', ')}),`,
  '`nombreItem` (≤ 80) and optional `unidadMedida` (≤ 4). A line whose unit price is 0 is issued with IndFact 5 (entrega gratuita).',
  '',
  '**Currency**: `moneda` from the catalogue (400 `LISTA_PRECIOS_MONEDA_DESCONOCIDA`); for a foreign currency `tipoCambio.modo` says how the',
  'CFE\'s rate is taken: `emision` (default: emission resolves it for the CFE date, company table then central bank), `cierrePeriodo`',
  '(the rate of the billed period\'s last day), `fijo` (`tipoCambio.valor`, DGI TipCambioType). UYU books carry no `tipoCambio`.',
].join('\n');

export const closeDescription = [
  'Sets `vigenteHasta` of a version to an earlier day (or ends an open-ended one), so that a new version can start the day after.',
  'Prices never change. The new end must be today (Montevideo) or later and not before the version\'s start, so no day already billed',
  'changes its prices; extending a version is not possible (create another). Otherwise 409 `LISTA_PRECIOS_VERSION_CERRADA`.',
].join('\n');
