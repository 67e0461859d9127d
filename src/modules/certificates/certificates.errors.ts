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
  // Trust (BRIEF 3, issue 27 point 5): refused in DGI_MODE=real, a warning (`advertencias`) in simulator mode.
  // DGI answers E04 "certificate not trusted" to CFEs signed outside an accredited CA.
  CERTIFICADO_AUTOFIRMADO: { status: 422, message: 'El certificado es autofirmado: debe emitirlo una autoridad certificadora acreditada en Uruguay.' },
  CERTIFICADO_CADENA_INCOMPLETA: { status: 422, message: 'Falta un certificado intermedio de la cadena: inclúyalo en el .p12 o agregue la autoridad certificadora con CERT_TRUST_ANCHORS.' },
  CERTIFICADO_CA_NO_CONFIABLE: { status: 422, message: 'La cadena del certificado termina en una autoridad certificadora que no es de confianza.' },
  CERTIFICADO_CADENA_INVALIDA: { status: 422, message: 'Un certificado de la cadena no fue firmado por la autoridad certificadora que nombra.' },
  CERTIFICADO_CA_NO_VIGENTE: { status: 422, message: 'Una autoridad certificadora de la cadena no está vigente.' },
  CERTIFICADO_USO_NO_FIRMA: { status: 422, message: 'El certificado no es para firma digital.' },
  CERTIFICADO_DUPLICADO: { status: 409, message: 'Ese certificado ya fue importado en la empresa.' },
  CERTIFICADO_NO_ENCONTRADO: { status: 404, message: 'El certificado no existe.' },
  EMPRESA_SIN_CERTIFICADO: { status: 422, message: 'La empresa no tiene un certificado de firma activo: importe uno con POST /api/v1/empresa/importarCertificado (idEmpresa, clave y el archivo .p12/.pfx; el primero queda activo) o active uno ya importado con POST /api/v1/empresa/asignarCertificado.' },
});
