/** DGI testing-set runs (issue 47). */
import { defineErrors } from '../../lib/errors.js';

export const dgiTestingErrors = defineErrors({
  PRUEBA_NO_ENCONTRADA: { status: 404, message: 'La prueba de testing no existe o no pertenece a una empresa suya.' },
  PRUEBA_EN_CURSO: { status: 409, message: 'Ya hay una prueba de testing en curso para la empresa.' },
});
