/** OpenAPI descriptions of /api/v1/facturacionrecurrente (issue 32): the design where the spec names only paths. */

export const planDescription = `Creates a recurring invoicing plan in state \`borrador\` (version 1); \`activar/{id}\` starts it. Not shown by the spec; designed here (issue 32).

**Plan fields:** \`idEmpresa\`; emission point \`codComercio\` + \`codTerminal\` (as emitir); \`plantilla\`: emitir's \`cfe\` without \`idDoc.fechaEmision\` (receiver \`receptor.idCliente\` or \`receptor.documento\`, lines, currency \`totales.tipoMoneda\`, type \`idDoc.tipoCfe\` 101/111/121/131/141, \`adenda\`); \`frecuencia\` {\`unidad\` dia|semana|mes|anio, \`intervalo\`}; \`anclaje\` {\`diaDelMes\` 1..31 | "ultimo" for mes/anio, \`diaSemana\` 1..7 for semana}; \`horaEmision\` HH:MM (default 06:00) in \`zonaHoraria\` (IANA, default America/Montevideo); \`fechaInicio\`; \`fin\` {\`tipo\` nunca | fecha + \`fecha\` | ciclos + \`ciclos\`}; \`periodo.modo\` adelantado (default: a period is billed on its first day) | vencido (on the day after it ends); \`politicaAtrasos\` emitir_todos (default) | emitir_uno | omitir; \`envioEmail\` {\`activo\`, \`destinatarios\`?} (default the customer's e-mail).

**Dates come from the anchor, never from the previous run:** period k starts at fechaInicio's first anchor date + k × intervalo units, the day clamped to the month's length (31 Jan → 28/29 Feb → 31 Mar → 30 Apr → 31 May); a period ends the day before the next one starts. The CFE's \`fechaEmision\` is the run's local date and its adenda starts with "Período facturado: dd/mm/aaaa al dd/mm/aaaa.".

**Validated when saved:** the template goes through emission's own preparation (emitir's rules, emission point, receiver, currency and exchange rate, certificate) for the first period: a plan that could never emit is refused now with emitir's own 4xx code, not on its first run. Also 422 PLAN_TIPO_CFE_NO_PERMITIDO (credit/debit notes need references; remitos and resguardos are not sales), PLAN_ANCLAJE_INVALIDO, PLAN_FIN_INVALIDO, PLAN_TOTALES_FIJOS (emitir_uno multiplies quantities, so sent totals are refused).

**Missed runs** (the service was down, or the plan was activated with past periods): the latest due period is the current one and is always issued; the earlier ones follow \`politicaAtrasos\`: emitir_todos, one CFE each (every period keeps its own CFE); emitir_uno, one CFE for all of them and the current one (quantities × periods, the adenda states the whole span; the folded periods show \`resultado: acumulado\` with \`acumuladaEn\`); omitir, recorded as \`omitido\`.

Needs role emisor. Response 201: the plan (see buscar).`;

export const editDescription = `Edits a plan in borrador, activo or pausado (409 PLAN_NO_EDITABLE with \`estadoActual\` and \`accionesPermitidas\` otherwise). \`id\` plus any plan field of crear; the fields sent replace the current ones (objects as a whole), validated like crear. Every edit is a new \`version\` (GET /api/v1/facturacionrecurrente/{id} lists them); each run records the version that produced its CFE, and runs already written keep theirs. A change of schedule applies from the first period that starts after the last run's and whose run time is still ahead: an edit never triggers catch-up runs.`;

export const actionsDescription = `**Plan actions** (\`POST /api/v1/facturacionrecurrente/{accion}/{id}\`, the shape of the spec's \`activar/{id}\`):

| accion | from → to | body |
|---|---|---|
| activar | borrador → activo | — |
| pausar | activo → pausado | {hasta?} ISO instant: automatic resume then |
| reanudar | pausado → activo | {politicaReanudacion: omitir (default) \\| recuperar} |
| cancelar | borrador, activo, pausado → cancelado (terminal) | {motivo?} |
| emitirAhora | activo | — : issues the next period now; the anchor does not move |
| omitirProxima | activo, pausado | — : the next period is recorded omitido; the anchor does not move |
| reintentar | activo, pausado, finalizado | {periodoDesde}: the run is issued now from the plan's current version (an edit may be the fix), dated today, for its own period(s); a \`fallido\` run keeps its key, a \`rechazado_dgi\` run gets a new CFE under key \`…-reemision-<n>\`. Automatic retries resend the request frozen when the run was claimed |

\`finalizado\` is reached automatically when the cycles or the end date are used up. An action not allowed in the current state is **409 TRANSICION_NO_PERMITIDA** with \`estadoActual\` and \`accionesPermitidas\`; an unknown action is **404 ACCION_DESCONOCIDA**; another company's plan 404 PLAN_NO_ENCONTRADO. Events: \`PlanRecurrente.EstadoCambiado\` on each state change. Response: the plan, plus \`ejecucion\` (the run issued or retried by emitirAhora / reintentar, else null). Needs role emisor.`;

export const searchDescription = `Plans of a company (\`idEmpresa\`, \`start\`, \`length\` as the spec), filtered by \`estado\`, \`idCliente\` / \`documento\` (the template's receiver) and \`proximaEjecucionDesde/Hasta\` (ISO instants). Each plan: its fields as sent, \`id\`, \`estado\`, \`version\`, \`accionesPermitidas\`, \`proximaEjecucion\` (instant of the next run), \`proximoPeriodo\` {desde, hasta}, \`ciclosRestantes\` (fin ciclos), \`pausadoHasta\`, \`motivoCancelacion\`, \`ultimaEjecucion\` (a run of reporte-historial).`;

export const historyDescription = `Every run of the company's plans, newest planned first (\`start\`, \`length\` as the spec, \`idEmpresa\`, which a user of exactly one company may leave out, else 400 PLAN_EMPRESA_REQUERIDA; filters \`idPlan\`, \`resultado\`, \`desde\`/\`hasta\` local days of the planned time). A row: \`idEjecucion\`, \`idPlan\`, \`version\` (of the plan that produced it), \`claveEjecucion\` (idPlan:periodoDesde; UNIQUE, and the CFE's Idempotency-Key is \`recurrente-<idPlan>-<periodoDesde>\`), \`periodoDesde\`, \`periodoHasta\`, \`periodos\`, \`programadaPara\`, \`ejecutadaEn\`, \`resultado\` (pendiente | emitido | fallido | omitido | acumulado | rechazado_dgi), \`origen\` (programada | manual | pausa), \`idCfeEmitido\`, \`tipoCfe\`, \`serie\`, \`numero\`, \`estadoDgi\` (the CFE's current state), \`codigo\` + \`motivo\` (failure: emitir's error code and message, or DGI's rejection), \`intento\`, \`proximoIntento\` (automatic retries 15 min, 1 h, 6 h and 24 h after the 1st..4th failure; then only reintentar), \`acumuladaEn\`. Events: \`PlanRecurrente.EjecucionEmitida\`, \`PlanRecurrente.EjecucionFallida\` (also when DGI later rejects the CFE).`;

export const previewDescription = `The next \`cantidad\` runs (periodoDesde, periodoHasta, programadaPara, fechaEmision) from the plan's next period (from the first for a borrador), and \`proximoCfe\`: the CFE the next run would issue, as emission prepares it (DGI names: IdDoc, Emisor, Receptor, Detalle, Totales), without numbering, signing or storing anything. When it cannot be prepared today (e.g. no exchange rate yet) \`errorProximoCfe\` has emitir's code and message.`;

export const catalogosDescription = 'Frequencies, anchors, states with their allowed actions, the actions (from, to), missed-run policies (and the default), period modes, run results, the CFE types a plan may issue, and the default time zone.';
