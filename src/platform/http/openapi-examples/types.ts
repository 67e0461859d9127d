/**
 * One operation's examples: the request body and, where given, a hand-made success answer (`response`
 * for the first success status, `responses` for others, e.g. a 207); test/openapi-examples.int.test.ts
 * parses every hand-made answer with the operation's response schema.
 */
export interface OperationExample {
  request?: unknown;
  response?: unknown;
  responses?: Record<string, unknown>;
}
export type ExampleCatalogue = Record<string, OperationExample>;

/**
 * The ids the examples use are the ones a fresh service gives the resources the earlier examples
 * create, in the order of a first integration: company 1 (RUT 219999830019, a DGI testing RUT),
 * branch 1, emission point 1, certificate 1, CAE ranges 1 (e-Ticket) and 2 (e-Factura), customer 1
 * (RUT 210475730011), product 1, variant 1, issued CFE 1, … test/openapi-examples.int.test.ts
 * posts them in that order and puts the real ids in their place.
 */
export const IDS = { empresa: 1, sucursal: 1, punto: 1, certificado: 1, caeTicket: 1, caeFactura: 2, cliente: 1, producto: 1, variante: 1, cfe: 1, usuario: 2 } as const;
export const RUT_EMPRESA = '219999830019';
export const RUT_CLIENTE = '210475730011';
