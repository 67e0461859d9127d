/**
 * Sales orders (órdenes de venta): the small resource whose changes raise the OrdenDeVenta.*
 * events of spec 6, each written to the outbox in the same transaction as the change.
 * States: borrador ↔ confirmada → finalizada; borrador/confirmada → cancelada.
 */
import { Decimal } from 'decimal.js';
import type { Db, DbOrTx } from '../../platform/db/client.js';
import { assertCompanyRole, type Actor, type CompanyRole } from '../../platform/http/actor.js';
import type { Paging } from '../../platform/http/paging.js';
import type { EventType } from '../events/events.catalogue.js';
import type { EventsService } from '../events/events.service.js';
import type { IssueCfeBody } from '../issued-cfe/issued-cfe.schemas.js';
import { buildEmitBody, defaultTipoCfe, orderIdempotencyKey, receptorOf, type EmissionOptions } from './sales-orders.emission.js';
import { uyToday } from '../../lib/dates.js';
import { salesOrderErrors } from './sales-orders.errors.js';
import * as repo from './sales-orders.repository.js';
import type { SalesOrderClient, SalesOrderLine, SalesOrderState } from './sales-orders.tables.js';
import { salesOrders } from './sales-orders.tables.js';
import { companyOfIds } from '../../platform/db/company-of.js';

type Amount = number | string;
export interface LineInput { nombreItem: string; descripcionItem?: string; cantidad: Amount; unidadMedida?: string; precioUnitario: Amount }
export interface CreateOrderInput { idEmpresa: number; cliente: SalesOrderClient; detalles: LineInput[]; tipoMoneda: string; observaciones?: string; estado: 'borrador' | 'confirmada' }
export interface EditOrderInput { id: number; cliente?: SalesOrderClient; detalles?: LineInput[]; tipoMoneda?: string; observaciones?: string | null; estado?: 'borrador' | 'confirmada' }

/** The slice of the issued-cfe service used here (wired in modules/index.ts). */
export interface CfeEmitter {
  emit(body: IssueCfeBody, idempotencyKey?: string): Promise<{ view: { id: number }; replayed: boolean }>;
}
/** The customer's TipoDocRecep, to pick the default CFE type of an order given by idCliente. */
export interface CustomerLookup {
  findForCompany(db: DbOrTx, companyId: number, id: number): Promise<{ tipoDocumento: number } | undefined>;
}

export function view(r: repo.SalesOrderRow) {
  return {
    id: r.id, idEmpresa: r.companyId, estado: r.estado, cliente: r.cliente, detalles: r.detalles, tipoMoneda: r.tipoMoneda,
    total: r.total, observaciones: r.observaciones, idCfeEmitido: r.idCfeEmitido,
    createdAt: r.createdAt.toISOString(), updatedAt: r.updatedAt.toISOString(),
  };
}

/** montoItem = cantidad × precioUnitario, rounded to 2 decimals (decimal.js, never floats). */
export function priceLines(lines: LineInput[]): { detalles: SalesOrderLine[]; total: string } {
  let total = new Decimal(0);
  const detalles = lines.map((l, i) => {
    const monto = new Decimal(l.cantidad).times(new Decimal(l.precioUnitario)).toDecimalPlaces(2);
    total = total.plus(monto);
    return { ...l, numeroLineaDetalle: i + 1, cantidad: new Decimal(l.cantidad).toString(), precioUnitario: new Decimal(l.precioUnitario).toString(), montoItem: monto.toFixed(2) };
  });
  return { detalles, total: total.toFixed(2) };
}

export function createSalesOrdersService(deps: { db: Db; events: EventsService; issuedCfe?: CfeEmitter; customers?: CustomerLookup }) {
  const { db, events } = deps;

  /** Loads and locks the order inside `tx`, answering another company's order like a missing one. */
  async function load(tx: DbOrTx, actor: Actor, id: number, role: CompanyRole) {
    const row = await repo.findOrderForUpdate(tx, id);
    if (!row) throw salesOrderErrors.ORDEN_NO_ENCONTRADA();
    assertCompanyRole(actor, row.companyId, role, () => salesOrderErrors.ORDEN_NO_ENCONTRADA());
    return row;
  }

  async function changed(tx: DbOrTx, type: EventType, row: repo.SalesOrderRow) {
    const v = view(row);
    await events.record(tx, { type, companyId: row.companyId, resource: v });
    return v;
  }

  function assertState(row: repo.SalesOrderRow, allowed: SalesOrderState[]) {
    if (!allowed.includes(row.estado)) throw salesOrderErrors.ORDEN_ESTADO_INVALIDO(`La orden está ${row.estado}; esta operación requiere estado ${allowed.join(' o ')}.`);
  }

  return {
    /** id → company id of existing rows (issue 28 point 5: platform/http/company-refs.ts resolves body ids through it). */
    companyOf: (ids: readonly number[]) => companyOfIds(db, salesOrders, ids),
    async create(actor: Actor, input: CreateOrderInput) {
      assertCompanyRole(actor, input.idEmpresa, 'emisor');
      const { detalles, total } = priceLines(input.detalles);
      return db.transaction(async (tx) => {
        const row = await repo.insertOrder(tx, { companyId: input.idEmpresa, estado: input.estado, cliente: input.cliente, detalles, total, tipoMoneda: input.tipoMoneda, observaciones: input.observaciones ?? null });
        return changed(tx, 'OrdenDeVenta.Creada', row);
      });
    },

    async edit(actor: Actor, input: EditOrderInput) {
      return db.transaction(async (tx) => {
        const row = await load(tx, actor, input.id, 'emisor');
        assertState(row, ['borrador', 'confirmada']);
        const changes: Parameters<typeof repo.updateOrder>[2] = {};
        if (input.detalles) Object.assign(changes, priceLines(input.detalles));
        if (input.cliente) changes.cliente = input.cliente;
        if (input.tipoMoneda) changes.tipoMoneda = input.tipoMoneda;
        if (input.observaciones !== undefined) changes.observaciones = input.observaciones;
        if (input.estado) changes.estado = input.estado;
        return changed(tx, 'OrdenDeVenta.Actualizada', await repo.updateOrder(tx, row.id, changes));
      });
    },

    async cancel(actor: Actor, id: number) {
      return db.transaction(async (tx) => {
        const row = await load(tx, actor, id, 'emisor');
        assertState(row, ['borrador', 'confirmada']);
        return changed(tx, 'OrdenDeVenta.Cancelada', await repo.updateOrder(tx, id, { estado: 'cancelada', cancelledAt: new Date() }));
      });
    },

    /** Finalizes a confirmed order without issuing a CFE. */
    async finalize(actor: Actor, id: number) {
      return db.transaction(async (tx) => {
        const row = await load(tx, actor, id, 'emisor');
        assertState(row, ['confirmada']);
        return changed(tx, 'OrdenDeVenta.Finalizada', await repo.updateOrder(tx, id, { estado: 'finalizada', finalizedAt: new Date() }));
      });
    },

    /**
     * Finalizes a confirmed order issuing its CFE. Emission runs its own transaction (network and
     * signing must not sit inside ours), so: emit first with the Idempotency-Key ordenventa-<id>,
     * then a short transaction moves the order to finalizada with idCfeEmitido. A rejected CFE
     * leaves the order confirmada; a retry after a failure between the two steps, or a concurrent
     * finalize, gets the same CFE back from emission and finds (or makes) the same finalized order.
     */
    async finalizeWithCfe(actor: Actor, id: number, opts: EmissionOptions) {
      const { issuedCfe, customers } = deps;
      if (!issuedCfe) throw salesOrderErrors.EMISION_NO_DISPONIBLE();
      const row = await repo.findOrder(db, id);
      if (!row) throw salesOrderErrors.ORDEN_NO_ENCONTRADA();
      assertCompanyRole(actor, row.companyId, 'emisor', () => salesOrderErrors.ORDEN_NO_ENCONTRADA());
      if (row.estado === 'finalizada' && row.idCfeEmitido != null) return view(row);
      assertState(row, ['confirmada']);

      const receptor = receptorOf(row.cliente, opts.receptor);
      const docType = receptor?.idCliente !== undefined ? (await customers?.findForCompany(db, row.companyId, receptor.idCliente))?.tipoDocumento : undefined;
      const body = buildEmitBody(row, opts, opts.tipoCfe ?? defaultTipoCfe(receptor, docType), opts.fechaEmision ?? uyToday());
      const { view: cfe } = await issuedCfe.emit(body, orderIdempotencyKey(row.id));

      return db.transaction(async (tx) => {
        const current = await load(tx, actor, id, 'emisor');
        // A concurrent finalize of the same order already stored this very CFE: same answer.
        if (current.estado === 'finalizada' && current.idCfeEmitido === cfe.id) return view(current);
        if (current.estado !== 'confirmada') {
          throw salesOrderErrors.ORDEN_ESTADO_INVALIDO(`La orden pasó a estado ${current.estado} mientras se emitía el CFE ${cfe.id}; revise ese comprobante.`);
        }
        const done = await repo.updateOrder(tx, id, { estado: 'finalizada', finalizedAt: new Date(), idCfeEmitido: cfe.id });
        return changed(tx, 'OrdenDeVenta.Finalizada', done);
      });
    },

    async get(actor: Actor, id: number) {
      const row = await repo.findOrder(db, id);
      if (!row) throw salesOrderErrors.ORDEN_NO_ENCONTRADA();
      assertCompanyRole(actor, row.companyId, 'lectura', () => salesOrderErrors.ORDEN_NO_ENCONTRADA());
      return view(row);
    },

    async list(actor: Actor, idEmpresa: number, estado: SalesOrderState | undefined, paging: Paging) {
      assertCompanyRole(actor, idEmpresa, 'lectura');
      const { rows, total } = await repo.listOrders(db, idEmpresa, estado, paging);
      return { data: rows.map(view), total };
    },
  };
}

export type SalesOrdersService = ReturnType<typeof createSalesOrdersService>;
