import { defineErrors } from '../../lib/errors.js';

/** Certificate import (BRIEF 3): every reason a .p12 is refused has its own code. */
export const certificateErrors = defineErrors({
  CERTIFICADO_ARCHIVO_REQUERIDO: { status: 400, message: 'Adjunte el archivo .p12/.pfx del certificado y su contraseña.' },
  CERTIFICADO_ARCHIVO_INVALIDO: { status: 400, message: 'El archivo no es un PKCS#12 (.p12/.pfx) legible.' },
  CERTIFICADO_CLAVE_INCORRECTA: { status: 400, message: 'La contraseña del certificado no es correcta.' },
  CERTIFICADO_SIN_CLAVE_PRIVADA: { status: 400, message: 'El archivo no contiene la clave privada del certificado.' },
  /** BRIEF 3: DGI signs and verifies with RSA (rsa-sha256 / rsa-sha1); an EC or Ed25519 key cannot sign a CFE. */
  CERTIFICADO_CLAVE_NO_RSA: { status: 400, message: 'La clave privada del certificado no es RSA: DGI exige certificados con clave RSA (firma rsa-sha256).' },
  CERTIFICADO_CLAVE_NO_CORRESPONDE: { status: 400, message: 'La clave privada del archivo no corresponde a su certificado.' },
  CERTIFICADO_NO_VIGENTE: { status: 400, message: 'El certificado no está vigente (vencido o aún no válido).' },
  CERTIFICADO_RUT_DISTINTO: { status: 400, message: 'El certificado no corresponde a la empresa: su sujeto debe incluir serialNumber=RUC<RUT de la empresa>.' },
  CERTIFICADO_DUPLICADO: { status: 409, message: 'Ese certificado ya fue importado en la empresa.' },
  CERTIFICADO_NO_ENCONTRADO: { status: 404, message: 'El certificado no existe.' },
  EMPRESA_SIN_CERTIFICADO: { status: 422, message: 'La empresa no tiene un certificado de firma activo: importe uno con POST /api/v1/empresa/importarCertificado (idEmpresa, clave y el archivo .p12/.pfx; el primero queda activo) o active uno ya importado con POST /api/v1/empresa/asignarCertificado.' },
});
