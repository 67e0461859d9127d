import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../../platform/http/error-body.js';
import { paged, pagingQuery } from '../../platform/http/paging.js';
import { requireActor } from '../../platform/http/tenancy.js';
import * as s from './contract-billing.schemas.js';
import type { ContractBillingService } from './contract-billing.service.js';
import type { PeriodCloseService } from './period-close.service.js';

const ACTIONS = {
  activar: 'Activate a draft contract (borrador → activo).',
  suspender: 'Suspend by hand: the contract stays suspendido whatever its rules say, until reanudar. A suspended contract (by hand or by a `suspender` rule) still meters: its events are accepted, counted and billed at the period\'s close; the suspension tells the integrator to stop serving, it never loses usage that happened.',
  reanudar: 'End a manual suspension: the state the usage rules give applies again.',
  cancelar: 'Cancel the contract (final). With `facturar: true`, the open period is billed at once up to today (one CFE, safe to repeat).',
  finalizar: 'Finish the contract now (final; from activo, en_advertencia or suspendido). With `facturar: true`, the open period is billed at once up to today (one CFE, safe to repeat).',
  levantar: 'Lift reached usage rules (body `reglas`, default all): they hold lifted until the period changes.',
} as const;

export function contractBillingRoutes(billing: ContractBillingService, close: PeriodCloseService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['suscripciones y contratos'];

    app.put('/api/v1/contracts/:id/terms', {
      config: { minRole: 'emisor' },
      schema: {
        tags, summary: 'Set a contract\'s billing terms', params: s.idParams, body: s.termsBody, response: { 200: s.termsView, ...errorResponses },
        description: 'Price book (a pinned version, or a code whose version in force on each period\'s first day applies), monthly period anchored on `diaAncla` (America/Montevideo), CFE type and emission point of the period\'s CFE, and usage rules. Rules are evaluated after every ingested batch (a crossing changes the state within about a second) and when a period opens. The first period starts on the contract\'s start day (`inicio`, America/Montevideo) and ends at the first anchor day after it; a start in the past is billed period by period from then, every period already over being closed by the next close run (within a minute, or at once with the sandbox clock). A change to terms that already exist applies as follows: `diaAncla` closes the open period short at the first new anchor day (see diaAncla); the price book (`idVersionListaPrecios`/`codigoListaPrecios`), `tipoCfe`, `codComercio`, `codTerminal` and `formaPago` apply to the CFE of the open period and later ones (closed periods keep theirs; corrections use the version their CFE was rated with); `reglas` are evaluated against the open period at once. Periods already closed never change.',
      },
    }, async (req) => billing.setTerms(requireActor(req), req.params.id, req.body));

    app.get('/api/v1/contracts/:id/terms', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'A contract\'s billing terms', params: s.idParams, response: { 200: s.termsView, ...errorResponses } },
    }, async (req) => billing.getTerms(requireActor(req), req.params.id));

    app.get('/api/v1/contracts/:id/state', {
      config: { minRole: 'lectura' },
      schema: {
        tags, summary: 'Contract state', params: s.idParams, response: { 200: s.stateView, ...errorResponses },
        description: 'The state (borrador, activo, en_advertencia, suspendido, cancelado, finalizado), since when and why (`motivo`: the rule and observed value, the manual action and its user, or the period change), the open period, its usage and the amount rated so far against the prices, each rule with its observed value and whether it is reached, the allowed `acciones`, and the last closed period with its CFE and notes.',
      },
    }, async (req) => billing.state(requireActor(req), req.params.id));

    app.get('/api/v1/contracts/:id/status-history', {
      config: { minRole: 'lectura' },
      schema: {
        tags, summary: 'Usage status history', params: s.idParams, querystring: s.historyQuery, response: { 200: s.historyPage, ...errorResponses },
        description: 'Every state transition with its cause (the same `motivo` event 8 `Contrato.EstadoCambiado` carries), oldest first. `start`/`end`: days YYYY-MM-DD in America/Montevideo, both inclusive. Paged with `offset`/`length` (`start` names the date here).',
      },
    }, async (req) => billing.history(requireActor(req), req.params.id, req.query));

    for (const [action, summary] of Object.entries(ACTIONS) as Array<[keyof typeof ACTIONS, string]>) {
      app.post(`/api/v1/contracts/:id/${action}`, {
        config: { minRole: 'emisor' },
        schema: { tags, summary: `Contract: ${action}`, description: `${summary} Refused with 409 CONTRATO_ACCION_INVALIDA outside the states \`acciones\` of GET state lists. Recorded in the history with the user.`, params: s.idParams, body: s.actionBody.optional(), response: { 200: s.stateView, ...errorResponses } },
      }, async (req) => billing.act(requireActor(req), req.params.id, action, req.body ?? {}));
    }

    app.get('/api/v1/contracts/:id/periods', {
      config: { minRole: 'lectura' },
      schema: {
        tags, summary: 'A contract\'s closed periods', params: s.idParams, querystring: pagingQuery, response: { 200: s.periodsPage, ...errorResponses },
        description: 'Every period closed so far, newest first (the open one is in GET state): its bounds, state, amount rated before IVA (`total`, in `moneda`), its CFE, late usage (`usoTardio`) and correction notes. Paged with `start`/`length`.',
      },
    }, async (req) => {
      const { start, length } = req.query;
      const { data, total } = await billing.periods(requireActor(req), req.params.id, { start, length });
      return paged(data, total, { start, length });
    });

    app.post('/api/v1/contracts/:id/periods/:desde/correct', {
      config: { minRole: 'emisor' },
      schema: {
        tags, summary: 'Correct a closed period', params: s.periodParams, response: { 200: s.periodAnswer, ...errorResponses },
        description: 'Re-rates a period whose CFE was issued (`desde`: its first day) with the usage counted now (events accepted after the close) and the same price version; issues a debit note for increases and a credit note for decreases, each referencing the period\'s CFE. Nothing to correct answers the period unchanged. Safe to retry: the notes carry an Idempotency-Key per correction.',
      },
    }, async (req) => close.correct(requireActor(req), req.params.id, req.params.desde));
  };
}
