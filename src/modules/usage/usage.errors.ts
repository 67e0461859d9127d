import { defineErrors } from '../../lib/errors.js';

export const usageErrors = defineErrors({
  USO_EMPRESA_REQUERIDA: { status: 400, message: 'Indique idEmpresa: su usuario tiene acceso a más de una empresa.' },
  USO_LOTE_EXCEDIDO: { status: 400, message: 'Un lote lleva a lo sumo 100 eventos; no se registró ninguno. Divídalo en lotes de 100 o menos.' },
  METRICA_NO_ENCONTRADA: { status: 404, message: 'La métrica no existe.' },
  METRICA_DUPLICADA: { status: 409, message: 'Ya existe una métrica con ese código en la empresa.' },
  METRICA_EN_USO: { status: 409, message: 'La métrica ya tiene uso registrado: su código, agregación, propiedad y claves de agrupación no cambian, y no se puede eliminar.' },
  METRICA_INVALIDA: { status: 400, message: 'La definición de la métrica no es válida.' },
  CONTRATO_NO_ENCONTRADO: { status: 404, message: 'El contrato no existe.' },
  CONTRATO_DUPLICADO: { status: 409, message: 'Ya existe un contrato con ese idExterno en la empresa.' },
  CONTRATO_INVALIDO: { status: 400, message: 'Los datos del contrato no son válidos.' },
  CONTRATO_TRANSICION_INVALIDA: { status: 409, message: 'El contrato no puede pasar a ese estado desde el actual.' },
  CONTRATO_METRICA_CON_USO: { status: 409, message: 'No se puede quitar del contrato una métrica que ya tiene uso registrado.' },
  USO_CONSULTA_INVALIDA: { status: 400, message: 'La consulta de uso no es válida.' },
});
