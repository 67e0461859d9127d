/**
 * The catalogue of business events (spec 6). The spec fixes three names exactly (Cfe.Emitido,
 * OrdenDeVenta.Creada, OrdenDeVenta.Finalizada); the others follow the same
 * `<Resource>.<PastParticiple>` style, in the spec's published order.
 */
export const eventCatalogue = [
  { type: 'OrdenDeVenta.Creada', description: 'A new sales order is created (spec 6 #1).', data: 'the sales order (see GET /api/v1/ordenventa/{id})' },
  { type: 'OrdenDeVenta.Actualizada', description: 'A sales order changes data or state (spec 6 #2).', data: 'the sales order after the change' },
  { type: 'OrdenDeVenta.Cancelada', description: 'A sales order is cancelled (spec 6 #3).', data: 'the cancelled sales order' },
  { type: 'OrdenDeVenta.Finalizada', description: 'A sales order is finalized (spec 6 #4).', data: 'the finalized sales order (idCfeEmitido when a CFE was issued)' },
  { type: 'Cfe.Emitido', description: 'Post-emission processing of a CFE finishes (spec 6 #5).', data: 'the issued CFE: idCfeEmitido, tipoCfe, serie, numero, CAE, fechaEmision, totals, QR' },
  { type: 'CfeRecibido.Registrado', description: 'A received CFE is registered (spec 6 #6).', data: 'the received CFE: id, secuencia, rutEmisor, tipoCfe, serie, numero, fechaEmision, totals, estado, checks' },
  { type: 'CfeRecibido.Aceptado', description: 'The company accepts a received CFE (its ACKCFE AE goes to the issuer).', data: 'the received CFE after the decision' },
  { type: 'CfeRecibido.Rechazado', description: 'The company rejects a received CFE with a motive E20-E60 (its ACKCFE BE goes to the issuer).', data: 'the received CFE after the decision, with motivos' },
  { type: 'CfeRecibido.ImportadoStock', description: 'A received CFE is marked as taken into stock (marcarComoImportadoStock; not raised by a repeat with the same reference).', data: 'the received CFE with importadoStock { referencia, lineas, fecha, idUsuario }' },
  { type: 'Cfe.RechazadoDgi', description: 'DGI rejects a CFE in the second response of the envelope (spec 6 #7).', data: 'the CFE identity plus the DGI rejection reasons' },
  { type: 'Contrato.EstadoCambiado', description: 'A contract changes state due to usage rules, a manual action or a period change (spec 6 #8).', data: 'idContrato, estadoAnterior, estadoNuevo, en, motivo (the cause the status history stores)' },
  { type: 'Contrato.ReglaAlcanzada', description: 'A usage rule of a contract is reached (any accion: notificar, advertir, suspender), once per rule and period (issue 40).', data: 'idContrato, regla, accion, objetivo, metrica, umbral, valorObservado, periodo { desde, hasta }, en' },
  { type: 'Cfe.ObservadoDgi', description: 'DGI observes a CFE in the second response of the envelope (spec 6 #9).', data: 'the CFE identity plus the DGI observations' },
  { type: 'Cfe.RechazadoReceptor', description: 'The receiver (envelope exchange between companies) rejects the CFE (spec 6 #10).', data: 'the CFE identity plus the receiver rejection reasons' },
  { type: 'Cfe.ObservadoReceptor', description: 'The receiver reports the observed state (CE) for a CFE in exchange between companies (spec 6 #11).', data: 'the CFE identity plus the receiver observations' },
  { type: 'BeneficioFiscal.Declarada', description: 'The company saves a tax-benefit declaration (Decreto 206/019 or 324/011, BRIEF 12); the one it supersedes, if any, is named.', data: 'the declaration (GET /api/v1/empresa/beneficio-fiscal/declaraciones item) plus idReemplazada' },
  { type: 'PlanRecurrente.EjecucionEmitida', description: 'A run of a recurring plan issued its CFE (issue 32).', data: 'the run as in GET /api/v1/facturacionrecurrente/reporte-historial: idPlan, version, periodoDesde/Hasta, idCfeEmitido, serie, numero…' },
  { type: 'PlanRecurrente.EjecucionFallida', description: 'A run of a recurring plan failed (emission refused or unavailable; retried by policy), or DGI rejected its CFE (resultado rechazado_dgi).', data: 'the run: resultado, codigo, motivo, intento, proximoIntento' },
  { type: 'PlanRecurrente.EstadoCambiado', description: 'A recurring plan changes state (an action, an automatic resume, or finalizado when its cycles or end date are used up).', data: 'idPlan, estadoAnterior, estado, accion, version' },
] as const;

export type EventType = (typeof eventCatalogue)[number]['type'];
export const eventTypes = eventCatalogue.map((e) => e.type) as unknown as readonly [EventType, ...EventType[]];

/** Sent only by POST /api/v1/webhooks/{id}/probar; not subscribable and not in the feed. */
export const TEST_EVENT_TYPE = 'Webhook.Prueba';

export function isEventType(value: string): value is EventType {
  return (eventTypes as readonly string[]).includes(value);
}

/**
 * Whether a built feature raises the event. An event marked `notEmittedYet` (none today: every spec
 * area has landed) is refused at subscription, since a subscriber would wait for deliveries that never come.
 */
export function isEmitted(type: EventType): boolean {
  return !eventCatalogue.some((e) => e.type === type && 'notEmittedYet' in e);
}

/** The JSON body of every delivery and of every item of GET /api/v1/eventos. */
export interface EventEnvelope {
  id: string;
  type: string;
  time: string;
  idEmpresa: number;
  data: unknown;
}

export const eventIdPrefix = 'evt_';

export function toEnvelope(row: { id: number; type: string; createdAt: Date; companyId: number; data: unknown }): EventEnvelope {
  return { id: `${eventIdPrefix}${row.id}`, type: row.type, time: row.createdAt.toISOString(), idEmpresa: row.companyId, data: row.data };
}

/** Markdown table of the catalogue for OpenAPI descriptions. */
export function catalogueMarkdown(): string {
  return [
    '| type | emitted when | data |',
    '|---|---|---|',
    ...eventCatalogue.map((e) => `| \`${e.type}\` | ${e.description}${isEmitted(e.type) ? '' : ' **Not emitted yet; cannot be subscribed.**'} | ${e.data} |`),
    '',
    'Every event is JSON `{ "id": "evt_123", "type": "Cfe.Emitido", "time": "2026-02-17T12:00:00.000Z", "idEmpresa": 7, "data": { … } }`.',
  ].join('\n');
}
