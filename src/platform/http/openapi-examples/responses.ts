/** Success answers recorded by `npm run openapi:examples` (test/openapi-examples.int.test.ts) from a fresh service; long texts cut. Generated: do not edit. */
export const recordedResponses: Record<string, unknown> = {
  "getCaeCfcTodos": {
    "data": [
      {
        "id": 1,
        "idEmpresa": 1,
        "tipoCFC": 201,
        "serie": "B",
        "desde": 1,
        "hasta": 200,
        "constancia": "90260000512",
        "fechaVencimiento": "2028-06-30",
        "vencido": false,
        "utilizados": 1
      }
    ],
    "total": 1,
    "start": 0,
    "length": 50
  },
  "getCaeNumeroDisponibleContingencia": {
    "disponible": true,
    "rango": {
      "id": 1,
      "idEmpresa": 1,
      "tipoCFC": 201,
      "serie": "B",
      "desde": 1,
      "hasta": 200,
      "constancia": "90260000512",
      "fechaVencimiento": "2028-06-30",
      "vencido": false,
      "utilizados": 1
    }
  },
  "getCaeObtenerDisponibilidad": [
    {
      "tipoCfe": 101,
      "serie": "A",
      "rangosVigentes": 1,
      "numerosDisponibles": 899,
      "fechaVencimiento": "2027-11-28",
      "usoUltimos30Dias": 1,
      "fechaEstimadaAgotamiento": "2027-11-28"
    },
    {
      "tipoCfe": 111,
      "serie": "A",
      "rangosVigentes": 1,
      "numerosDisponibles": 997,
      "fechaVencimiento": "2027-11-28",
      "usoUltimos30Dias": 3,
      "fechaEstimadaAgotamiento": "2027-11-28"
    }
  ],
  "getCaeTodos": {
    "data": [],
    "total": 0,
    "start": 0,
    "length": 50
  },
  "getCfeemitidoBuscar": {
    "data": [
      {
        "id": 2,
        "idEmpresa": 1,
        "idSucursal": 1,
        "idPuntoEmision": 1,
        "tipoCfe": 201,
        "nombreTipoCfe": "e-Ticket (contingencia)",
        "serie": "B",
        "numero": 1,
        "fechaEmision": "2026-11-28",
        "fechaFirma": "2026-11-28T15:17:15-03:00",
        "estado": "firmado",
        "estadoReceptor": null,
        "receptor": {
          "tipoDocumento": null,
          "documento": null,
          "nombre": null
        },
        "moneda": "UYU",
        "tipoCambio": null,
        "totales": {
          "mntNoGrv": null,
          "mntNetoIvaTasaMin": null,
          "mntNetoIvaTasaBasica": "189.90",
          "mntIvaTasaMin": null,
          "mntIvaTasaBasica": "41.78",
          "mntTotal": "231.68",
          "mntPagar": "231.68"
        },
        "codigoSeguridad": "k5WBVR"
      }
    ],
    "total": 1,
    "start": 0,
    "length": 50
  },
  "getCfeemitidoById": {
    "id": 1,
    "idEmpresa": 1,
    "idSucursal": 1,
    "idPuntoEmision": 1,
    "tipoCfe": 101,
    "nombreTipoCfe": "e-Ticket",
    "serie": "A",
    "numero": 101,
    "fechaEmision": "2026-11-28",
    "fechaFirma": "2026-11-28T15:17:14-03:00",
    "estado": "firmado",
    "cae": {
      "numero": "90260000014",
      "desde": 1,
      "hasta": 1000,
      "fechaVencimiento": "2027-11-28"
    },
    "codigoSeguridad": "h3us5F",
    "hash": "h3us5FZW4sxfhnJp0Cm6Gsz/3Hk9S0iNW/P8CvmtaY0=",
    "urlQr": "https://www.efactura.dgi.gub.uy/consultaQR/cfe?219999830019,101,A,101,444.30,28/11/2026,h3us5FZW4sxfhnJp0Cm6Gsz%2F3Hk9S0iNW%2FP8CvmtaY0%3D",
    "qrPng": "iVBORw0KGgoAAAANSUhEUgAAAP8AAAD/AQAAAAAWcz1nAAADsElEQVR4Ae39…",
    "moneda": "UYU",
    "tipoCambio": null,
    "totales": {
      "TpoMoneda": "UYU",
      "MntNetoIvaTasaMin": "58.64",
      "MntNetoIVATasaBasica": "311.31",
      "IVATasaMin": "10.000",
      "IVATasaBasica": "22.000",
      "MntIVATasaMin": "5.86",
      "MntIVATasaBasica": "68.49",
      "MntTotal": "444.30",
      "CantLinDet": 2,
      "MntPagar": "444.30"
    },
    "idDoc": {
      "TipoCFE": "101",
      "Serie": "A",
      "Nro": "101",
      "FchEmis": "2026-11-28",
      "MntBruto": "1",
      "FmaPago": "1"
    },
    "emisor": {
      "RUCEmisor": "219999830019",
      "RznSoc": "Almacén La Estrella S.A.",
      "NomComercial": "La Estrella",
      "GiroEmis": "Comercio minorista de alimentos",
      "Telefono": [
        "29001235"
      ],
      "CorreoEmisor": "facturacion@laestrella.com.uy",
      "EmiSucursal": "Casa Central",
      "CdgDGISucur": "1",
      "DomFiscal": "Av. 18 de Julio 1234",
      "Ciudad": "Montevideo",
      "Departamento": "Montevideo"
    },
    "receptor": null,
    "detalles": [
      {
        "NroLinDet": "1",
        "IndFact": "3",
        "NomItem": "Yerba mate 1 kg",
        "Cantidad": "2",
        "UniMed": "N/A",
        "PrecioUnitario": "189.90",
        "MontoItem": "379.80"
      },
      {
        "NroLinDet": "2",
        "IndFact": "2",
        "NomItem": "Arroz 1 kg",
        "Cantidad": "1",
        "UniMed": "N/A",
        "PrecioUnitario": "64.50",
        "MontoItem": "64.50"
      }
    ],
    "descuentosRecargos": [],
    "mediosPago": [
      {
        "NroLinMP": "1",
        "CodMP": "1",
        "GlosaMP": "Efectivo",
        "ValorPago": "444.30"
      }
    ],
    "referencias": [],
    "complementoFiscal": null,
    "adenda": null,
    "idempotencyKey": "caja1-2026-11-27-000123",
    "estadoReceptor": null,
    "historial": [
      {
        "lado": "dgi",
        "estadoAnterior": null,
        "estado": "firmado",
        "codigo": null,
        "motivos": null,
        "mensaje": null,
        "referencia": null,
        "idUsuario": null,
        "motivo": null,
        "fecha": "2026-11-28T18:17:14.647Z"
      }
    ]
  },
  "getCfeemitidoByIdEstados": {
    "id": 1,
    "estado": "firmado",
    "estadoReceptor": null,
    "historial": [
      {
        "lado": "dgi",
        "estadoAnterior": null,
        "estado": "firmado",
        "codigo": null,
        "motivos": null,
        "mensaje": null,
        "referencia": null,
        "idUsuario": null,
        "motivo": null,
        "fecha": "2026-11-28T18:17:14.647Z"
      }
    ]
  },
  "getCfeemitidoByIdIntercambio": {
    "idCfe": 1,
    "idEmpresa": 1,
    "tipoCfe": 101,
    "serie": "A",
    "numero": 101,
    "rutReceptor": null,
    "estadoReceptor": null,
    "sobres": [],
    "respuestas": [],
    "avisosAnulacion": []
  },
  "getCfeemitidoEmailenvios": {
    "data": [
      {
        "id": 1,
        "idCfe": 1,
        "idEmpresa": 1,
        "destinatarios": [
          "compras@clientedemo.com.uy"
        ],
        "asunto": "Su comprobante de La Estrella",
        "formato": "A4",
        "estado": "pendiente",
        "intentos": 0,
        "ultimoError": null,
        "codigoSmtp": null,
        "messageId": null,
        "transporte": null,
        "idUsuario": 1,
        "fechaSolicitud": "2026-11-28T18:17:15.622Z",
        "fechaEnvio": null
      }
    ],
    "total": 1,
    "start": 0,
    "length": 50
  },
  "getCfeemitidoGetConfiguracionExportacionCfe": {
    "userId": 1,
    "idEmpresa": 1,
    "columnas": [
      "fechaEmision",
      "nombreTipoCfe"
    ],
    "predeterminada": false,
    "catalogo": [
      {
        "clave": "id",
        "titulo": "Id",
        "tipo": "integer"
      },
      {
        "clave": "fechaEmision",
        "titulo": "Fecha emisión",
        "tipo": "date"
      }
    ]
  },
  "getCfeemitidoGraficaDiaria": {
    "idEmpresa": 1,
    "agrupacion": "dia",
    "desde": "2026-10-30",
    "hasta": "2026-11-28",
    "zonaHoraria": "America/Montevideo (UTC-03:00)",
    "etiquetas": [
      "2026-10-30",
      "2026-10-31"
    ],
    "cantidad": [
      0,
      0
    ],
    "montoUYU": [
      "0.00",
      "0.00"
    ],
    "porMoneda": [
      {
        "moneda": "UYU",
        "cantidad": [
          0,
          0
        ],
        "monto": [
          "0.00",
          "0.00"
        ]
      }
    ],
    "porTipo": [
      {
        "tipoCfe": 101,
        "nombreTipoCfe": "e-Ticket",
        "cantidad": [
          0,
          0
        ],
        "montoUYU": [
          "0.00",
          "0.00"
        ]
      },
      {
        "tipoCfe": 111,
        "nombreTipoCfe": "e-Factura",
        "cantidad": [
          0,
          0
        ],
        "montoUYU": [
          "0.00",
          "0.00"
        ]
      }
    ]
  },
  "getCfeemitidoGraficaFacturacionMensual": {
    "idEmpresa": 1,
    "agrupacion": "mes",
    "desde": "2025-12",
    "hasta": "2026-11",
    "zonaHoraria": "America/Montevideo (UTC-03:00)",
    "etiquetas": [
      "2025-12",
      "2026-01"
    ],
    "cantidad": [
      0,
      0
    ],
    "montoUYU": [
      "0.00",
      "0.00"
    ],
    "porMoneda": [
      {
        "moneda": "UYU",
        "cantidad": [
          0,
          0
        ],
        "monto": [
          "0.00",
          "0.00"
        ]
      }
    ],
    "porTipo": [
      {
        "tipoCfe": 101,
        "nombreTipoCfe": "e-Ticket",
        "cantidad": [
          0,
          0
        ],
        "montoUYU": [
          "0.00",
          "0.00"
        ]
      },
      {
        "tipoCfe": 111,
        "nombreTipoCfe": "e-Factura",
        "cantidad": [
          0,
          0
        ],
        "montoUYU": [
          "0.00",
          "0.00"
        ]
      }
    ]
  },
  "getCfeemitidoRespuestasReceptor": {
    "data": [],
    "total": 0,
    "start": 0,
    "length": 50
  },
  "getCfeemitidoSobresReceptor": {
    "data": [],
    "total": 0,
    "start": 0,
    "length": 50
  },
  "getCferecibidoBuscar": {
    "data": [],
    "total": 0,
    "start": 0,
    "length": 50
  },
  "getCferecibidoById": {
    "id": 1,
    "idEmpresa": 1,
    "secuencia": 1,
    "canal": "importacion",
    "sobre": {
      "id": 1,
      "rutEmisor": "211000010012",
      "idEmisor": 2,
      "fecha": "2026-11-28T15:17:16-03:00",
      "cantidadCfe": 2,
      "estado": "AS",
      "sinSobre": false,
      "nroOrdinal": 1,
      "verificaciones": [
        {
          "control": "tamano",
          "ok": true
        },
        {
          "control": "formato",
          "ok": true
        }
      ]
    },
    "rutEmisor": "211000010012",
    "razonSocialEmisor": "Empresa 2 S.A.",
    "tipoCfe": 111,
    "serie": "A",
    "numero": 1,
    "fechaEmision": "2026-11-28",
    "tmstFirma": "2026-11-28T15:17:16-03:00",
    "moneda": "UYU",
    "tipoCambio": null,
    "mntTotal": "15250.00",
    "mntPagar": "15250.00",
    "datos": {
      "idDoc": {
        "Nro": 1,
        "Serie": "A",
        "FchEmis": "2026-11-28",
        "FmaPago": 1,
        "TipoCFE": 111
      },
      "emisor": {
        "Ciudad": "Montevideo",
        "RznSoc": "Empresa 2 S.A.",
        "DomFiscal": "Av. 18 de Julio 1234",
        "RUCEmisor": "211000010012",
        "CdgDGISucur": 2,
        "EmiSucursal": "Casa Central",
        "Departamento": "Montevideo"
      },
      "caeData": {
        "DNro": 1,
        "HNro": 100000,
        "CAE_ID": "90260000203",
        "FecVenc": "2027-12-31"
      },
      "detalle": [
        {
          "UniMed": "N/A",
          "IndFact": 3,
          "NomItem": "Cajas de cartón",
          "Cantidad": "10",
          "MontoItem": "12500.00",
          "NroLinDet": 1,
          "PrecioUnitario": "1250.00"
        }
      ],
      "totales": {
        "MntPagar": "15250.00",
        "MntTotal": "15250.00",
        "TpoMoneda": "UYU",
        "CantLinDet": 1,
        "IVATasaMin": "10.000",
        "IVATasaBasica": "22.000",
        "MntIVATasaBasica": "2750.00",
        "MntNetoIVATasaBasica": "12500.00"
      },
      "receptor": {
        "DirRecep": "Av. 18 de Julio 1234",
        "DocRecep": "219999830019",
        "CiudadRecep": "Montevideo",
        "RznSocRecep": "Almacén La Estrella S.A.",
        "CodPaisRecep": "UY",
        "TipoDocRecep": 2
      },
      "referencias": []
    },
    "adenda": null,
    "verificaciones": [
      {
        "control": "xsd_cfe",
        "ok": true,
        "detalle": "Validado con el XSD del sobre (CFEDefType)."
      },
      {
        "control": "firma",
        "ok": true
      }
    ],
    "estado": "aceptado",
    "motivos": [],
    "vencimientoRespuesta": "2026-12-28",
    "decididoEn": "2026-11-28T18:17:17.057Z",
    "idRespuesta": 2,
    "recibidoEn": "2026-11-28T18:17:16.992Z",
    "importadoStock": {
      "referencia": "REM-2026-0457",
      "lineas": [
        {
          "nroLinea": 1,
          "cantidad": "10"
        }
      ],
      "fecha": "2026-11-28T18:17:17.087Z",
      "idUsuario": 1
    },
    "historial": [
      {
        "estado": "pendiente",
        "motivos": null,
        "mensaje": "Recibido por importacion",
        "idUsuario": null,
        "fecha": "2026-11-28T18:17:16.992Z"
      },
      {
        "estado": "aceptado",
        "motivos": null,
        "mensaje": "Aceptado por la empresa",
        "idUsuario": 1,
        "fecha": "2026-11-28T18:17:17.052Z"
      }
    ],
    "consultaQr": {
      "resultado": "pendiente",
      "diferencias": [],
      "dgi": null,
      "detalle": null,
      "intentos": 0,
      "solicitadoEn": "2026-11-28T18:17:17.163Z",
      "consultadoEn": null
    },
    "respuestas": [
      {
        "id": 1,
        "tipo": "ACKSobre",
        "archivo": "M_1_Sob_211000010012_20261128_2.xml",
        "estado": "pendiente",
        "email": "facturacion@distribuidoradeleste.com.uy",
        "enviadoEn": null,
        "transporte": null,
        "ultimoError": null,
        "enlace": "/api/v1/cferecibido/respuesta/1"
      },
      {
        "id": 2,
        "tipo": "ACKCFE",
        "archivo": "ME_2_Sob_211000010012_20261128_2.xml",
        "estado": "pendiente",
        "email": "facturacion@distribuidoradeleste.com.uy",
        "enviadoEn": null,
        "transporte": null,
        "ultimoError": null,
        "enlace": "/api/v1/cferecibido/respuesta/2"
      }
    ]
  },
  "getCferecibidoConciliacionById": {
    "id": 1,
    "idEmpresa": 1,
    "desde": "2026-11-01",
    "hasta": "2026-11-27",
    "rutEmisor": null,
    "consultasDgi": 1,
    "cantidadDgi": 0,
    "cantidadLocal": 0,
    "conteos": {
      "faltante_en_buzon": 0,
      "no_registrado_en_dgi": 0,
      "diferencia_estado": 0,
      "diferencia_monto": 0
    },
    "items": [],
    "idUsuario": 1,
    "creadoEn": "2026-11-28T18:17:17.185Z"
  },
  "getCferecibidoGetConfiguracionExportacionCfe": {
    "userId": 1,
    "idEmpresa": 1,
    "columnas": [
      "fechaEmision",
      "rutEmisor"
    ],
    "predeterminada": false,
    "catalogo": [
      {
        "clave": "id",
        "titulo": "Id",
        "tipo": "integer"
      },
      {
        "clave": "secuencia",
        "titulo": "Secuencia",
        "tipo": "integer"
      }
    ]
  },
  "getClienteBuscarPorDocumento": [
    {
      "id": 1,
      "idEmpresa": 1,
      "tipoDocumento": 2,
      "codPais": "UY",
      "documento": "210475730011",
      "razonSocial": "Distribuidora del Este S.R.L.",
      "direccion": "Ruta 8 km 20",
      "ciudad": "Pando",
      "departamento": "Canelones",
      "pais": null,
      "codigoPostal": null,
      "email": "compras@distribuidoradeleste.com.uy",
      "emisorElectronico": true,
      "emailIntercambio": "cfe@distribuidoradeleste.com.uy"
    }
  ],
  "getClienteById": {
    "id": 1,
    "idEmpresa": 1,
    "tipoDocumento": 2,
    "codPais": "UY",
    "documento": "210475730011",
    "razonSocial": "Distribuidora del Este S.R.L.",
    "direccion": "Ruta 8 km 20",
    "ciudad": "Pando",
    "departamento": "Canelones",
    "pais": null,
    "codigoPostal": null,
    "email": "compras@distribuidoradeleste.com.uy",
    "emisorElectronico": true,
    "emailIntercambio": "cfe@distribuidoradeleste.com.uy"
  },
  "getClienteTodos": {
    "data": [
      {
        "id": 1,
        "idEmpresa": 1,
        "tipoDocumento": 2,
        "codPais": "UY",
        "documento": "210475730011",
        "razonSocial": "Distribuidora del Este S.R.L.",
        "direccion": "Ruta 8 km 20",
        "ciudad": "Pando",
        "departamento": "Canelones",
        "pais": null,
        "codigoPostal": null,
        "email": "compras@distribuidoradeleste.com.uy",
        "emisorElectronico": true,
        "emailIntercambio": "cfe@distribuidoradeleste.com.uy"
      }
    ],
    "total": 1,
    "start": 0,
    "length": 50
  },
  "getComprobanteGetByIdCfeEmitido": {
    "id": 1,
    "idEmpresa": 1,
    "idSucursal": 1,
    "idPuntoEmision": 1,
    "tipoCfe": 101,
    "nombreTipoCfe": "e-Ticket",
    "serie": "A",
    "numero": 101,
    "fechaEmision": "2026-11-28",
    "fechaFirma": "2026-11-28T15:17:14-03:00",
    "estado": "firmado",
    "cae": {
      "numero": "90260000014",
      "desde": 1,
      "hasta": 1000,
      "fechaVencimiento": "2027-11-28"
    },
    "codigoSeguridad": "h3us5F",
    "hash": "h3us5FZW4sxfhnJp0Cm6Gsz/3Hk9S0iNW/P8CvmtaY0=",
    "urlQr": "https://www.efactura.dgi.gub.uy/consultaQR/cfe?219999830019,101,A,101,444.30,28/11/2026,h3us5FZW4sxfhnJp0Cm6Gsz%2F3Hk9S0iNW%2FP8CvmtaY0%3D",
    "qrPng": "iVBORw0KGgoAAAANSUhEUgAAAP8AAAD/AQAAAAAWcz1nAAADsElEQVR4Ae39…",
    "moneda": "UYU",
    "tipoCambio": null,
    "totales": {
      "TpoMoneda": "UYU",
      "MntNetoIvaTasaMin": "58.64",
      "MntNetoIVATasaBasica": "311.31",
      "IVATasaMin": "10.000",
      "IVATasaBasica": "22.000",
      "MntIVATasaMin": "5.86",
      "MntIVATasaBasica": "68.49",
      "MntTotal": "444.30",
      "CantLinDet": 2,
      "MntPagar": "444.30"
    },
    "idDoc": {
      "TipoCFE": "101",
      "Serie": "A",
      "Nro": "101",
      "FchEmis": "2026-11-28",
      "MntBruto": "1",
      "FmaPago": "1"
    },
    "emisor": {
      "RUCEmisor": "219999830019",
      "RznSoc": "Almacén La Estrella S.A.",
      "NomComercial": "La Estrella",
      "GiroEmis": "Comercio minorista de alimentos",
      "Telefono": [
        "29001235"
      ],
      "CorreoEmisor": "facturacion@laestrella.com.uy",
      "EmiSucursal": "Casa Central",
      "CdgDGISucur": "1",
      "DomFiscal": "Av. 18 de Julio 1234",
      "Ciudad": "Montevideo",
      "Departamento": "Montevideo"
    },
    "receptor": null,
    "detalles": [
      {
        "NroLinDet": "1",
        "IndFact": "3",
        "NomItem": "Yerba mate 1 kg",
        "Cantidad": "2",
        "UniMed": "N/A",
        "PrecioUnitario": "189.90",
        "MontoItem": "379.80"
      },
      {
        "NroLinDet": "2",
        "IndFact": "2",
        "NomItem": "Arroz 1 kg",
        "Cantidad": "1",
        "UniMed": "N/A",
        "PrecioUnitario": "64.50",
        "MontoItem": "64.50"
      }
    ],
    "descuentosRecargos": [],
    "mediosPago": [
      {
        "NroLinMP": "1",
        "CodMP": "1",
        "GlosaMP": "Efectivo",
        "ValorPago": "444.30"
      }
    ],
    "referencias": [],
    "complementoFiscal": null,
    "adenda": null,
    "idempotencyKey": "caja1-2026-11-27-000123",
    "estadoReceptor": null,
    "historial": [
      {
        "lado": "dgi",
        "estadoAnterior": null,
        "estado": "firmado",
        "codigo": null,
        "motivos": null,
        "mensaje": null,
        "referencia": null,
        "idUsuario": null,
        "motivo": null,
        "fecha": "2026-11-28T18:17:14.647Z"
      }
    ]
  },
  "getContracts": {
    "data": [
      {
        "id": 1,
        "idEmpresa": 1,
        "idCliente": 1,
        "idExterno": "CTR-77",
        "estado": "cancelado",
        "estadoDesde": "2026-11-28T18:17:17.894Z",
        "metricas": [
          "api_calls"
        ],
        "inicio": "2026-11-01T03:00:00.000Z",
        "fin": "2027-11-01T02:59:59.000Z",
        "creadoEn": "2026-11-28T18:17:17.497Z",
        "actualizadoEn": "2026-11-28T18:17:17.894Z"
      }
    ],
    "total": 1,
    "start": 0,
    "length": 50
  },
  "getContractsById": {
    "id": 1,
    "idEmpresa": 1,
    "idCliente": 1,
    "idExterno": "CTR-77",
    "estado": "cancelado",
    "estadoDesde": "2026-11-28T18:17:17.894Z",
    "metricas": [
      "api_calls"
    ],
    "inicio": "2026-11-01T03:00:00.000Z",
    "fin": "2027-11-01T02:59:59.000Z",
    "creadoEn": "2026-11-28T18:17:17.497Z",
    "actualizadoEn": "2026-11-28T18:17:17.894Z"
  },
  "getContractsByIdPeriods": {
    "data": [],
    "total": 0,
    "start": 0,
    "length": 50
  },
  "getContractsByIdState": {
    "idContrato": 1,
    "estado": "cancelado",
    "desde": "2026-11-28T18:17:17.894Z",
    "motivo": {
      "tipo": "manual",
      "accion": "cancelar",
      "reglas": [],
      "usuario": "admin@test.uy"
    },
    "suspensionManual": false,
    "periodoAbierto": {
      "desde": "2026-11-01",
      "hasta": "2026-11-30",
      "inicio": "2026-11-01T03:00:00.000Z",
      "fin": "2026-12-01T03:00:00.000Z"
    },
    "moneda": "UYU",
    "idVersionListaPrecios": 1,
    "uso": [
      {
        "metrica": "api_calls",
        "cantidad": "1"
      }
    ],
    "montoHastaAhora": "0.50",
    "reglas": [
      {
        "id": "fin-prueba-gratis",
        "objetivo": "unidades",
        "metrica": "api_calls",
        "umbral": "1",
        "accion": "advertir",
        "levantamiento": "manual",
        "valorObservado": "1",
        "alcanzada": true,
        "estado": "levantada",
        "estadoDesde": "2026-11-28T18:17:17.861Z"
      }
    ],
    "acciones": [],
    "ultimoPeriodo": null,
    "alertaCierre": null
  },
  "getContractsByIdStatusHistory": {
    "data": [
      {
        "id": 1,
        "estadoAnterior": "borrador",
        "estadoNuevo": "activo",
        "en": "2026-11-28T18:17:17.514Z",
        "motivo": {
          "tipo": "manual",
          "accion": "activar",
          "reglas": [],
          "usuario": "admin@test.uy"
        }
      },
      {
        "id": 2,
        "estadoAnterior": "activo",
        "estadoNuevo": "en_advertencia",
        "en": "2026-11-28T18:17:17.787Z",
        "motivo": {
          "tipo": "regla",
          "regla": "fin-prueba-gratis",
          "accion": "advertir",
          "umbral": "1",
          "metrica": "api_calls",
          "objetivo": "unidades",
          "valorObservado": "1"
        }
      }
    ],
    "total": 6,
    "offset": 0,
    "length": 50
  },
  "getContractsByIdTerms": {
    "idContrato": 1,
    "idVersionListaPrecios": null,
    "codigoListaPrecios": "API-2026",
    "diaAncla": 1,
    "tipoCfe": 111,
    "codComercio": "CENTRAL",
    "codTerminal": "CAJA1",
    "formaPago": 2,
    "reglas": [
      {
        "id": "fin-prueba-gratis",
        "accion": "advertir",
        "umbral": "1",
        "metrica": "api_calls",
        "objetivo": "unidades",
        "levantamiento": "manual"
      }
    ],
    "periodoAbierto": "2026-11-01",
    "periodoAbiertoHasta": "2026-11-30",
    "alertaCierre": null
  },
  "getContractsByIdUsage": {
    "idContrato": 1,
    "desde": "2026-11-01T03:00:00.000Z",
    "hasta": "2026-11-28T19:00:00.000Z",
    "ventana": null,
    "zona": "America/Montevideo",
    "group_by": [],
    "final": false,
    "admiteEventosDesde": "2026-11-01T03:00:00.000Z",
    "datos": [
      {
        "metrica": "api_calls",
        "unidad": "llamadas",
        "agregacion": "count",
        "inicio": "2026-11-01T03:00:00.000Z",
        "fin": "2026-11-28T19:00:00.000Z",
        "grupo": {},
        "cantidad": "1"
      }
    ]
  },
  "getDgiTesting": [
    {
      "id": 1,
      "idEmpresa": 1,
      "destino": "simulador",
      "cantidadPorTipo": 50,
      "estado": "en_curso",
      "progreso": null,
      "reporte": null,
      "error": null,
      "inicio": "2026-11-28T18:17:17.920Z",
      "fin": null
    }
  ],
  "getDgiTestingById": {
    "id": 1,
    "idEmpresa": 1,
    "destino": "simulador",
    "cantidadPorTipo": 50,
    "estado": "en_curso",
    "progreso": null,
    "reporte": null,
    "error": null,
    "inicio": "2026-11-28T18:17:17.920Z",
    "fin": null
  },
  "getEmpresaBeneficioFiscalDeclaraciones": {
    "data": [
      {
        "id": 1,
        "idEmpresa": 1,
        "anioFiscal": 2026,
        "regimen": "decreto_206_019",
        "fundamento": "ingresos_hasta_750000_ui",
        "estado": "vigente",
        "reemplazadaPor": null,
        "reemplazadaEn": null,
        "fechaDeclaracion": "2026-11-28T18:17:14.230Z",
        "fechaInicioEmisor": "2011-10-01",
        "fuenteFechaInicio": "registro_dgi",
        "hechos": {
          "empresa": {
            "rut": "219999830019",
            "ciudad": "Montevideo",
            "razonSocial": "Almacén La Estrella S.A.",
            "departamento": "Montevideo",
            "domicilioFiscal": "Av. 18 de Julio 1234",
            "regimenTributario": "general"
          },
          "valorUiCierre": "6.3110",
          "ingresosAnioAnterior": "3500000.00",
          "ingresosAnioAnteriorUi": "554587.23"
        },
        "declarante": {
          "nombre": "María Fernández",
          "documento": "45678905",
          "cargo": "Directora"
        }
      }
    ],
    "total": 1,
    "start": 0,
    "length": 50
  },
  "getEmpresaBeneficioFiscalEstado": {
    "idEmpresa": 1,
    "fecha": "2026-11-28",
    "periodo": "2026-11",
    "decreto_206_019": {
      "vigente": true,
      "declaracion": {
        "id": 1,
        "idEmpresa": 1,
        "anioFiscal": 2026,
        "regimen": "decreto_206_019",
        "fundamento": "ingresos_hasta_750000_ui",
        "estado": "vigente",
        "reemplazadaPor": null,
        "reemplazadaEn": null,
        "fechaDeclaracion": "2026-11-28T18:17:14.230Z",
        "fechaInicioEmisor": "2011-10-01",
        "fuenteFechaInicio": "registro_dgi",
        "hechos": {
          "empresa": {
            "rut": "219999830019",
            "ciudad": "Montevideo",
            "razonSocial": "Almacén La Estrella S.A.",
            "departamento": "Montevideo",
            "domicilioFiscal": "Av. 18 de Julio 1234",
            "regimenTributario": "general"
          },
          "valorUiCierre": "6.3110",
          "ingresosAnioAnterior": "3500000.00",
          "ingresosAnioAnteriorUi": "554587.23"
        },
        "declarante": {
          "nombre": "María Fernández",
          "documento": "45678905",
          "cargo": "Directora"
        }
      },
      "vigenteHasta": "2026-12-31",
      "creditoMensual": {
        "topeUi": "80",
        "valorUi": "6.2563",
        "fechaValorUi": "2026-11-30",
        "topePesos": "500.50"
      }
    },
    "decreto_324_011": {
      "vigente": false,
      "declaracion": null,
      "vigenteHasta": null
    },
    "avisos": []
  },
  "getEmpresaBeneficioFiscalFechaInicio": {
    "idEmpresa": 1,
    "rut": "219999830019",
    "fechaInicio": "2011-10-01",
    "fuente": "registro_dgi",
    "leidoEn": "2026-11-28T18:17:14.197Z",
    "registro": {
      "denominacion": "DGI-RUC PRUEBA CEDE",
      "fechaFinTransicion": "2012-10-01",
      "fechaFin": null,
      "mail": "cfe.219999830019@example.com.uy"
    }
  },
  "getEmpresaById": {
    "id": 1,
    "rut": "219999830019",
    "razonSocial": "Almacén La Estrella S.A.",
    "nombreComercial": "La Estrella",
    "domicilioFiscal": "Av. 18 de Julio 1234",
    "ciudad": "Montevideo",
    "departamento": "Montevideo",
    "telefono": "29005678",
    "email": "facturacion@laestrella.com.uy",
    "actividad": "Comercio minorista de alimentos",
    "habilitada": true,
    "tieneLogo": false,
    "CodigoCasaDgiPorDefecto": 1
  },
  "getEmpresaByIdCertificados": [
    {
      "id": 1,
      "idEmpresa": 1,
      "sujeto": "CN=Almacén La Estrella S.A., serialNumber=RUC219999830019, O=Almacén La Estrella S.A., C=UY",
      "emisor": "CN=Simulador DGI - CA de prueba, OU=Testing, O=CFE Test PKI, C=UY",
      "numeroSerie": "71114887568256847474289162337317268800",
      "validoDesde": "2026-11-28T18:16:13.000Z",
      "validoHasta": "2028-11-28T18:16:13.000Z",
      "activo": true,
      "vigente": true,
      "venceEnDias": 730,
      "porVencer": false,
      "advertencias": []
    }
  ],
  "getEmpresaCfe": {
    "data": [],
    "total": 0,
    "start": 0,
    "length": 50
  },
  "getEmpresaCorreoEntrante": {
    "idEmpresa": 1,
    "configurado": true,
    "host": "imap.laestrella.com.uy",
    "puerto": 993,
    "tls": true,
    "usuario": "cfe-recibidos@laestrella.com.uy",
    "claveConfigurada": true,
    "carpeta": "INBOX",
    "direccion": "cfe-recibidos@laestrella.com.uy",
    "activo": false,
    "ultimoSondeoOk": null,
    "ultimoError": null,
    "ultimoErrorEn": null,
    "ultimoUid": 0
  },
  "getEmpresaCorreoEntranteCorreos": {
    "data": [],
    "total": 0,
    "start": 0,
    "length": 50
  },
  "getEmpresaCorreoSaliente": {
    "idEmpresa": 1,
    "configurado": true,
    "smtpHost": "smtp.laestrella.com.uy",
    "smtpPuerto": 587,
    "smtpSeguro": false,
    "smtpUsuario": "facturacion@laestrella.com.uy",
    "smtpClaveConfigurada": true,
    "remitente": "Almacén La Estrella <facturacion@laestrella.com.uy>",
    "fechaActualizacion": "2026-11-28T18:17:13.989Z"
  },
  "getEmpresaCotizaciones": {
    "data": [
      {
        "moneda": "EUR",
        "fecha": "2026-11-26",
        "tipoCambio": "43.120000"
      },
      {
        "moneda": "USD",
        "fecha": "2026-11-26",
        "tipoCambio": "39.850000"
      }
    ],
    "total": 2,
    "start": 0,
    "length": 50
  },
  "getEmpresaEnvioDgi": {
    "idEmpresa": 1,
    "envioIndividual": "todos"
  },
  "getEmpresaParametros": {
    "idEmpresa": 1,
    "ambienteDgi": "testing",
    "CodigoCasaDgiPorDefecto": 1,
    "regimenTributario": "general",
    "urlVerificacion": null,
    "limiteCfeMensual": null,
    "numeroResolucion": null,
    "fechaResolucion": null,
    "configuracion": {
      "leyendaAdicional": "Gracias por su compra"
    }
  },
  "getEmpresaTodas": {
    "data": [
      {
        "id": 1,
        "rut": "219999830019",
        "razonSocial": "Almacén La Estrella S.A.",
        "nombreComercial": "La Estrella",
        "domicilioFiscal": "Av. 18 de Julio 1234",
        "ciudad": "Montevideo",
        "departamento": "Montevideo",
        "telefono": "29005678",
        "email": "facturacion@laestrella.com.uy",
        "actividad": "Comercio minorista de alimentos",
        "habilitada": true,
        "tieneLogo": false,
        "CodigoCasaDgiPorDefecto": 1
      },
      {
        "id": 2,
        "rut": "211000010012",
        "razonSocial": "Empresa 2 S.A.",
        "nombreComercial": null,
        "domicilioFiscal": null,
        "ciudad": null,
        "departamento": null,
        "telefono": null,
        "email": null,
        "actividad": null,
        "habilitada": true,
        "tieneLogo": false,
        "CodigoCasaDgiPorDefecto": null
      }
    ],
    "total": 2,
    "start": 0,
    "length": 50
  },
  "getEventos": {
    "data": [
      {
        "id": "evt_1",
        "type": "BeneficioFiscal.Declarada",
        "time": "2026-11-28T18:17:14.230Z",
        "idEmpresa": 1,
        "data": {
          "id": 1,
          "estado": "vigente",
          "hechos": {
            "empresa": {
              "rut": "219999830019",
              "ciudad": "Montevideo",
              "razonSocial": "Almacén La Estrella S.A.",
              "departamento": "Montevideo",
              "domicilioFiscal": "Av. 18 de Julio 1234",
              "regimenTributario": "general"
            },
            "valorUiCierre": "6.3110",
            "ingresosAnioAnterior": "3500000.00",
            "ingresosAnioAnteriorUi": "554587.23"
          },
          "regimen": "decreto_206_019",
          "idEmpresa": 1,
          "anioFiscal": 2026,
          "declarante": {
            "cargo": "Directora",
            "nombre": "María Fernández",
            "documento": "45678905"
          },
          "fundamento": "ingresos_hasta_750000_ui",
          "idReemplazada": null,
          "reemplazadaEn": null,
          "reemplazadaPor": null,
          "fechaDeclaracion": "2026-11-28T18:17:14.230Z",
          "fechaInicioEmisor": "2011-10-01",
          "fuenteFechaInicio": "registro_dgi"
        }
      },
      {
        "id": "evt_2",
        "type": "Cfe.Emitido",
        "time": "2026-11-28T18:17:14.648Z",
        "idEmpresa": 1,
        "data": {
          "cae": {
            "desde": 1,
            "hasta": 1000,
            "numero": "90260000014",
            "fechaVencimiento": "2027-11-28"
          },
          "serie": "A",
          "urlQr": "https://www.efactura.dgi.gub.uy/consultaQR/cfe?219999830019,101,A,101,444.30,28/11/2026,h3us5FZW4sxfhnJp0Cm6Gsz%2F3Hk9S0iNW%2FP8CvmtaY0%3D",
          "moneda": "UYU",
          "numero": 101,
          "tipoCfe": 101,
          "totales": {
            "MntPagar": "444.30",
            "MntTotal": "444.30",
            "TpoMoneda": "UYU",
            "CantLinDet": 2,
            "IVATasaMin": "10.000",
            "IVATasaBasica": "22.000",
            "MntIVATasaMin": "5.86",
            "MntIVATasaBasica": "68.49",
            "MntNetoIvaTasaMin": "58.64",
            "MntNetoIVATasaBasica": "311.31"
          },
          "idEmpresa": 1,
          "fechaFirma": "2026-11-28T15:17:14-03:00",
          "tipoCambio": null,
          "fechaEmision": "2026-11-28",
          "idCfeEmitido": 1,
          "codigoSeguridad": "h3us5F"
        }
      }
    ],
    "total": 28,
    "start": 0,
    "length": 50,
    "cursor": "897.30"
  },
  "getExportacionContableCuentas": {
    "idEmpresa": 1,
    "cuentas": [
      {
        "clave": "deudoresPorVentas",
        "codigo": "1.1.3.01",
        "nombre": "Deudores por ventas",
        "codigoPredeterminado": "1.1.3.01"
      },
      {
        "clave": "ventasTasaBasica",
        "codigo": "4.1.1.01",
        "nombre": "Ventas gravadas tasa básica",
        "codigoPredeterminado": "4.1.1.01"
      }
    ]
  },
  "getFacturacionrecurrenteBuscar": {
    "data": [
      {
        "id": 1,
        "idEmpresa": 1,
        "estado": "cancelado",
        "version": 2,
        "accionesPermitidas": [],
        "proximaEjecucion": null,
        "proximoPeriodo": null,
        "ciclosRestantes": null,
        "pausadoHasta": null,
        "motivoCancelacion": "El cliente rescindió el contrato",
        "ultimaEjecucion": {
          "idEjecucion": 2,
          "idPlan": 1,
          "version": 2,
          "claveEjecucion": "1:2027-01-01",
          "periodoDesde": "2027-01-01",
          "periodoHasta": "2027-01-31",
          "periodos": 1,
          "programadaPara": "2027-01-01T09:00:00.000Z",
          "ejecutadaEn": "2026-11-28T18:17:17.338Z",
          "resultado": "emitido",
          "origen": "manual",
          "idCfeEmitido": 7,
          "tipoCfe": 111,
          "serie": "A",
          "numero": 3,
          "estadoDgi": "firmado",
          "codigo": null,
          "motivo": null,
          "intento": 1,
          "proximoIntento": null,
          "acumuladaEn": null
        },
        "createdAt": "2026-11-28T18:17:17.292Z",
        "updatedAt": "2026-11-28T18:17:17.460Z",
        "nombre": "Mantenimiento mensual (contrato 2027)",
        "codComercio": "CENTRAL",
        "codTerminal": "CAJA1",
        "plantilla": {
          "idDoc": {
            "tipoCfe": 111,
            "formaPago": 2
          },
          "detalles": [
            {
              "cantidad": "1",
              "nombreItem": "Servicio de mantenimiento mensual",
              "precioUnitario": "12500.00",
              "indicadorFacturacion": 3
            }
          ],
          "receptor": {
            "idCliente": 1
          }
        },
        "frecuencia": {
          "unidad": "mes",
          "intervalo": 1
        },
        "anclaje": {},
        "horaEmision": "06:00",
        "zonaHoraria": "America/Montevideo",
        "fechaInicio": "2026-12-01",
        "fin": {
          "tipo": "nunca"
        },
        "periodo": {
          "modo": "adelantado"
        },
        "politicaAtrasos": "emitir_todos",
        "envioEmail": {
          "activo": false
        }
      }
    ],
    "total": 1,
    "start": 0,
    "length": 50
  },
  "getFacturacionrecurrenteById": {
    "id": 1,
    "idEmpresa": 1,
    "estado": "cancelado",
    "version": 2,
    "accionesPermitidas": [],
    "proximaEjecucion": null,
    "proximoPeriodo": null,
    "ciclosRestantes": null,
    "pausadoHasta": null,
    "motivoCancelacion": "El cliente rescindió el contrato",
    "ultimaEjecucion": {
      "idEjecucion": 2,
      "idPlan": 1,
      "version": 2,
      "claveEjecucion": "1:2027-01-01",
      "periodoDesde": "2027-01-01",
      "periodoHasta": "2027-01-31",
      "periodos": 1,
      "programadaPara": "2027-01-01T09:00:00.000Z",
      "ejecutadaEn": "2026-11-28T18:17:17.338Z",
      "resultado": "emitido",
      "origen": "manual",
      "idCfeEmitido": 7,
      "tipoCfe": 111,
      "serie": "A",
      "numero": 3,
      "estadoDgi": "firmado",
      "codigo": null,
      "motivo": null,
      "intento": 1,
      "proximoIntento": null,
      "acumuladaEn": null
    },
    "createdAt": "2026-11-28T18:17:17.292Z",
    "updatedAt": "2026-11-28T18:17:17.460Z",
    "nombre": "Mantenimiento mensual (contrato 2027)",
    "codComercio": "CENTRAL",
    "codTerminal": "CAJA1",
    "plantilla": {
      "idDoc": {
        "tipoCfe": 111,
        "formaPago": 2
      },
      "detalles": [
        {
          "cantidad": "1",
          "nombreItem": "Servicio de mantenimiento mensual",
          "precioUnitario": "12500.00",
          "indicadorFacturacion": 3
        }
      ],
      "receptor": {
        "idCliente": 1
      }
    },
    "frecuencia": {
      "unidad": "mes",
      "intervalo": 1
    },
    "anclaje": {},
    "horaEmision": "06:00",
    "zonaHoraria": "America/Montevideo",
    "fechaInicio": "2026-12-01",
    "fin": {
      "tipo": "nunca"
    },
    "periodo": {
      "modo": "adelantado"
    },
    "politicaAtrasos": "emitir_todos",
    "envioEmail": {
      "activo": false
    },
    "versiones": [
      {
        "version": 1,
        "idUsuario": 1,
        "fecha": "2026-11-28T18:17:17.292Z"
      },
      {
        "version": 2,
        "idUsuario": 1,
        "fecha": "2026-11-28T18:17:17.298Z"
      }
    ]
  },
  "getFacturacionrecurrenteCatalogos": {
    "frecuencias": [
      {
        "unidad": "dia",
        "descripcion": "Cada `intervalo` días desde fechaInicio."
      },
      {
        "unidad": "semana",
        "descripcion": "Cada `intervalo` semanas, el día anclaje.diaSemana (1 = lunes … 7 = domingo)."
      }
    ],
    "anclajes": [
      {
        "valor": "1..31",
        "descripcion": "Día del mes; en un mes más corto, su último día (siempre desde el anclaje: 31/01 → 28 o 29/02 → 31/03)."
      },
      {
        "valor": "ultimo",
        "descripcion": "Último día de cada mes."
      }
    ],
    "estados": [
      {
        "estado": "borrador",
        "accionesPermitidas": [
          "activar",
          "cancelar"
        ]
      },
      {
        "estado": "activo",
        "accionesPermitidas": [
          "pausar",
          "cancelar"
        ]
      }
    ],
    "acciones": [
      {
        "accion": "activar",
        "desde": [
          "borrador"
        ],
        "hacia": "activo",
        "descripcion": "Starts the schedule. Periods whose run time is already past are handled by the missed-run policy."
      },
      {
        "accion": "pausar",
        "desde": [
          "activo"
        ],
        "hacia": "pausado",
        "descripcion": "Stops issuing; body {hasta?, politicaReanudacion?}: active a…"
      }
    ],
    "politicasAtrasos": [
      {
        "valor": "emitir_todos",
        "descripcion": "Un CFE por cada período atrasado, cada uno con su período en la adenda.",
        "predeterminada": true
      },
      {
        "valor": "emitir_uno",
        "descripcion": "Un solo CFE por los períodos atrasados y el actual: cantidades × períodos; la adenda indica todo el lapso.",
        "predeterminada": false
      }
    ],
    "modosPeriodo": [
      "adelantado",
      "vencido"
    ],
    "resultadosEjecucion": [
      "pendiente",
      "emitido"
    ],
    "tiposCfe": [
      {
        "tipoCfe": 101,
        "nombre": "e-Ticket"
      },
      {
        "tipoCfe": 111,
        "nombre": "e-Factura"
      }
    ],
    "zonaHorariaPredeterminada": "America/Montevideo"
  },
  "getFacturacionrecurrentePrevisualizarById": {
    "idPlan": 1,
    "ejecuciones": [],
    "proximoCfe": null,
    "errorProximoCfe": null
  },
  "getFacturacionrecurrenteReporteHistorial": {
    "data": [
      {
        "idEjecucion": 2,
        "idPlan": 1,
        "version": 2,
        "claveEjecucion": "1:2027-01-01",
        "periodoDesde": "2027-01-01",
        "periodoHasta": "2027-01-31",
        "periodos": 1,
        "programadaPara": "2027-01-01T09:00:00.000Z",
        "ejecutadaEn": "2026-11-28T18:17:17.338Z",
        "resultado": "emitido",
        "origen": "manual",
        "idCfeEmitido": 7,
        "tipoCfe": 111,
        "serie": "A",
        "numero": 3,
        "estadoDgi": "firmado",
        "codigo": null,
        "motivo": null,
        "intento": 1,
        "proximoIntento": null,
        "acumuladaEn": null
      },
      {
        "idEjecucion": 1,
        "idPlan": 1,
        "version": 2,
        "claveEjecucion": "1:2026-12-01",
        "periodoDesde": "2026-12-01",
        "periodoHasta": "2026-12-31",
        "periodos": 1,
        "programadaPara": "2026-12-01T09:00:00.000Z",
        "ejecutadaEn": "2026-11-28T18:17:17.333Z",
        "resultado": "omitido",
        "origen": "manual",
        "idCfeEmitido": null,
        "tipoCfe": null,
        "serie": null,
        "numero": null,
        "estadoDgi": null,
        "codigo": null,
        "motivo": "Omitida a pedido (omitirProxima).",
        "intento": 0,
        "proximoIntento": null,
        "acumuladaEn": null
      }
    ],
    "total": 2,
    "start": 0,
    "length": 50
  },
  "getHealthz": {
    "status": "ok"
  },
  "getMetrics": {
    "data": [
      {
        "id": 1,
        "idEmpresa": 1,
        "codigo": "api_calls",
        "nombre": "Llamadas a la API (todas las regiones)",
        "unidad": "llamadas",
        "agregacion": "count",
        "propiedad": null,
        "clavesAgrupacion": [
          "region"
        ],
        "creadoEn": "2026-11-28T18:17:17.469Z",
        "actualizadoEn": "2026-11-28T18:17:17.474Z"
      }
    ],
    "total": 1,
    "start": 0,
    "length": 50
  },
  "getMetricsById": {
    "id": 1,
    "idEmpresa": 1,
    "codigo": "api_calls",
    "nombre": "Llamadas a la API (todas las regiones)",
    "unidad": "llamadas",
    "agregacion": "count",
    "propiedad": null,
    "clavesAgrupacion": [
      "region"
    ],
    "creadoEn": "2026-11-28T18:17:17.469Z",
    "actualizadoEn": "2026-11-28T18:17:17.474Z"
  },
  "getMonedaTodas": [
    "AED",
    "AFN"
  ],
  "getOrdenventaBuscar": {
    "data": [
      {
        "id": 1,
        "idEmpresa": 1,
        "estado": "finalizada",
        "cliente": {
          "idCliente": 1
        },
        "detalles": [
          {
            "nombreItem": "Yerba mate 1 kg",
            "cantidad": "12",
            "unidadMedida": "UN",
            "precioUnitario": "189.9",
            "numeroLineaDetalle": 1,
            "montoItem": "2278.80"
          }
        ],
        "tipoMoneda": "UYU",
        "total": "2278.80",
        "observaciones": "Entregar en el depósito de Pando",
        "idCfeEmitido": 6,
        "createdAt": "2026-11-28T18:17:17.219Z",
        "updatedAt": "2026-11-28T18:17:17.255Z"
      },
      {
        "id": 2,
        "idEmpresa": 1,
        "estado": "cancelada",
        "cliente": {
          "idCliente": 1
        },
        "detalles": [
          {
            "nombreItem": "Yerba mate 1 kg",
            "cantidad": "12",
            "unidadMedida": "UN",
            "precioUnitario": "189.9",
            "numeroLineaDetalle": 1,
            "montoItem": "2278.80"
          }
        ],
        "tipoMoneda": "UYU",
        "total": "2278.80",
        "observaciones": null,
        "idCfeEmitido": null,
        "createdAt": "2026-11-28T18:17:17.263Z",
        "updatedAt": "2026-11-28T18:17:17.273Z"
      }
    ],
    "total": 2,
    "start": 0,
    "length": 50
  },
  "getOrdenventaById": {
    "id": 1,
    "idEmpresa": 1,
    "estado": "finalizada",
    "cliente": {
      "idCliente": 1
    },
    "detalles": [
      {
        "nombreItem": "Yerba mate 1 kg",
        "cantidad": "12",
        "unidadMedida": "UN",
        "precioUnitario": "189.9",
        "numeroLineaDetalle": 1,
        "montoItem": "2278.80"
      }
    ],
    "tipoMoneda": "UYU",
    "total": "2278.80",
    "observaciones": "Entregar en el depósito de Pando",
    "idCfeEmitido": 6,
    "createdAt": "2026-11-28T18:17:17.219Z",
    "updatedAt": "2026-11-28T18:17:17.255Z"
  },
  "getPriceBooks": {
    "data": [
      {
        "id": 1,
        "idEmpresa": 1,
        "codigo": "API-2026",
        "version": 1,
        "nombre": "Tarifa API 2026",
        "moneda": "UYU",
        "tipoCambio": {
          "modo": "emision"
        },
        "vigenteDesde": "2026-11-01",
        "vigenteHasta": "2027-10-31",
        "createdAt": "2026-11-28T18:17:17.484Z",
        "cantidadPrecios": 1
      }
    ],
    "total": 1,
    "start": 0,
    "length": 50
  },
  "getPriceBooksByCodigo": {
    "codigo": "API-2026",
    "versiones": [
      {
        "id": 1,
        "idEmpresa": 1,
        "codigo": "API-2026",
        "version": 1,
        "nombre": "Tarifa API 2026",
        "moneda": "UYU",
        "tipoCambio": {
          "modo": "emision"
        },
        "vigenteDesde": "2026-11-01",
        "vigenteHasta": "2027-10-31",
        "createdAt": "2026-11-28T18:17:17.484Z",
        "precios": [
          {
            "metrica": "api_calls",
            "modelo": "escalonado",
            "tramos": [
              {
                "desde": "0",
                "hasta": "10000",
                "precioUnitario": "0.50"
              },
              {
                "desde": "10000",
                "hasta": null,
                "precioUnitario": "0.35"
              }
            ],
            "indicadorFacturacion": 3,
            "nombreItem": "Llamadas a la API"
          }
        ]
      }
    ]
  },
  "getPriceBooksByCodigoVersionesByVersion": {
    "id": 1,
    "idEmpresa": 1,
    "codigo": "API-2026",
    "version": 1,
    "nombre": "Tarifa API 2026",
    "moneda": "UYU",
    "tipoCambio": {
      "modo": "emision"
    },
    "vigenteDesde": "2026-11-01",
    "vigenteHasta": "2027-10-31",
    "createdAt": "2026-11-28T18:17:17.484Z",
    "precios": [
      {
        "metrica": "api_calls",
        "modelo": "escalonado",
        "tramos": [
          {
            "desde": "0",
            "hasta": "10000",
            "precioUnitario": "0.50"
          },
          {
            "desde": "10000",
            "hasta": null,
            "precioUnitario": "0.35"
          }
        ],
        "indicadorFacturacion": 3,
        "nombreItem": "Llamadas a la API"
      }
    ]
  },
  "getPriceBooksByCodigoVigente": {
    "id": 1,
    "idEmpresa": 1,
    "codigo": "API-2026",
    "version": 1,
    "nombre": "Tarifa API 2026",
    "moneda": "UYU",
    "tipoCambio": {
      "modo": "emision"
    },
    "vigenteDesde": "2026-11-01",
    "vigenteHasta": "2027-10-31",
    "createdAt": "2026-11-28T18:17:17.484Z",
    "precios": [
      {
        "metrica": "api_calls",
        "modelo": "escalonado",
        "tramos": [
          {
            "desde": "0",
            "hasta": "10000",
            "precioUnitario": "0.50"
          },
          {
            "desde": "10000",
            "hasta": null,
            "precioUnitario": "0.35"
          }
        ],
        "indicadorFacturacion": 3,
        "nombreItem": "Llamadas a la API"
      }
    ]
  },
  "getProductoById": {
    "id": 1,
    "idEmpresa": 1,
    "codigo": "YER-1KG",
    "nombre": "Yerba mate 1 kg",
    "descripcion": "Yerba mate con palo, paquete de 1 kg",
    "unidadMedida": "UN",
    "indicadorFacturacion": 3,
    "requiereLote": false,
    "requiereSerie": false,
    "habilitado": true
  },
  "getProductoByIdVariantes": {
    "data": [
      {
        "id": 1,
        "idEmpresa": 1,
        "idProducto": 1,
        "codigo": "YER-1KG-SUAVE",
        "nombre": "Yerba mate suave 1 kg",
        "precioUnitario": "194.5",
        "unidadMedida": "UN",
        "unidadMedidaPropia": "UN",
        "habilitado": true
      }
    ],
    "total": 1,
    "start": 0,
    "length": 50
  },
  "getProductoTodos": {
    "data": [
      {
        "id": 1,
        "idEmpresa": 1,
        "codigo": "YER-1KG",
        "nombre": "Yerba mate 1 kg",
        "descripcion": "Yerba mate con palo, paquete de 1 kg",
        "unidadMedida": "UN",
        "indicadorFacturacion": 3,
        "requiereLote": false,
        "requiereSerie": false,
        "habilitado": true
      }
    ],
    "total": 1,
    "start": 0,
    "length": 50
  },
  "getProductoVarianteById": {
    "id": 1,
    "idEmpresa": 1,
    "idProducto": 1,
    "codigo": "YER-1KG-SUAVE",
    "nombre": "Yerba mate suave 1 kg",
    "precioUnitario": "194.5",
    "unidadMedida": "UN",
    "unidadMedidaPropia": "UN",
    "habilitado": true
  },
  "getProductoVarianteByIdLotes": {
    "data": [
      {
        "id": 1,
        "idVariante": 1,
        "codigo": "L2026-11-A",
        "fechaVencimiento": "2028-11-30"
      }
    ],
    "total": 1,
    "start": 0,
    "length": 50
  },
  "getProductoVarianteByIdSeries": {
    "data": [
      {
        "id": 1,
        "idVariante": 1,
        "numeroSerie": "SN-000154",
        "idLote": null
      }
    ],
    "total": 1,
    "start": 0,
    "length": 50
  },
  "getPuntoemisionById": {
    "id": 1,
    "idSucursal": 1,
    "idEmpresa": 1,
    "codComercio": "CENTRAL",
    "codTerminal": "CAJA1",
    "descripcion": "Caja 1 (planta baja)",
    "habilitada": true
  },
  "getPuntoemisionGetBySucursalTerminalByIdSucursal": {
    "id": 1,
    "idSucursal": 1,
    "idEmpresa": 1,
    "codComercio": "CENTRAL",
    "codTerminal": "CAJA1",
    "descripcion": "Caja 1 (planta baja)",
    "habilitada": true
  },
  "getPuntoemisionSucursalByIdSucursal": {
    "data": [
      {
        "id": 1,
        "idSucursal": 1,
        "idEmpresa": 1,
        "codComercio": "CENTRAL",
        "codTerminal": "CAJA1",
        "descripcion": "Caja 1 (planta baja)",
        "habilitada": true
      }
    ],
    "total": 1,
    "start": 0,
    "length": 50
  },
  "getPuntoemisionTodos": {
    "data": [
      {
        "id": 1,
        "idSucursal": 1,
        "idEmpresa": 1,
        "codComercio": "CENTRAL",
        "codTerminal": "CAJA1",
        "descripcion": "Caja 1 (planta baja)",
        "habilitada": true
      }
    ],
    "total": 1,
    "start": 0,
    "length": 50
  },
  "getReadyz": {
    "status": "ready",
    "memoria": {
      "rssMb": 578.4,
      "heapUsedMb": 132.1,
      "heapTotalMb": 159.5,
      "externalMb": 27.1,
      "arrayBuffersMb": 4.1
    }
  },
  "getReportediario": {
    "data": [
      {
        "id": 1,
        "idEmpresa": 1,
        "fechaResumen": "2026-11-26",
        "secEnvio": 1,
        "estado": "aceptado",
        "origen": "manual",
        "cantComprobantes": 0,
        "resumen": [],
        "tmstFirmaEnv": "2026-11-28T15:17:15-03:00",
        "nombreArchivo": "Rep_219999830019_20261126_01.xml",
        "estadoDgi": "AR",
        "motivos": [],
        "idReceptorDgi": "306900000",
        "intentos": 1,
        "ultimoError": null,
        "creadoEn": "2026-11-28T18:17:15.869Z",
        "enviadoEn": "2026-11-28T18:17:15.895Z"
      }
    ],
    "total": 1,
    "start": 0,
    "length": 50
  },
  "getReportediarioById": {
    "id": 1,
    "idEmpresa": 1,
    "fechaResumen": "2026-11-26",
    "secEnvio": 1,
    "estado": "aceptado",
    "origen": "manual",
    "cantComprobantes": 0,
    "resumen": [],
    "tmstFirmaEnv": "2026-11-28T15:17:15-03:00",
    "nombreArchivo": "Rep_219999830019_20261126_01.xml",
    "estadoDgi": "AR",
    "motivos": [],
    "idReceptorDgi": "306900000",
    "intentos": 1,
    "ultimoError": null,
    "creadoEn": "2026-11-28T18:17:15.869Z",
    "enviadoEn": "2026-11-28T18:17:15.895Z",
    "xml": "<Reporte xmlns=\"http://cfe.dgi.gub.uy\"><Caratula version=\"1.…",
    "ackXml": "<ACKRepDiario xmlns=\"http://cfe.dgi.gub.uy\" version=\"1.0\"><C…"
  },
  "getSandboxReloj": {
    "ahora": "2026-11-28T18:17:18.391Z",
    "desplazado": false
  },
  "getSobredgi": {
    "data": [],
    "total": 0,
    "start": 0,
    "length": 50
  },
  "getSobredgiById": {
    "id": 1,
    "idEmpresa": 2,
    "idEmisor": 1,
    "estado": "recibido",
    "cantidadCfe": 2,
    "bytes": 7085,
    "fecha": "2026-11-28T15:17:16-03:00",
    "intentosEnvio": 1,
    "intentosConsulta": 0,
    "estadoAckSobre": "AS",
    "idReceptor": "306900001",
    "consultarDesde": "2026-11-28T18:17:16.949Z",
    "proximoIntento": null,
    "errorCodigo": null,
    "errorMensaje": null,
    "creadoEn": "2026-11-28T18:17:16.895Z",
    "enviadoEn": "2026-11-28T18:17:16.947Z",
    "procesadoEn": null,
    "nombreArchivo": "Sob_211000010012_20261128_1.xml",
    "idsCfe": [
      4,
      5
    ]
  },
  "getSucursalById": {
    "id": 1,
    "idEmpresa": 1,
    "codComercio": "CENTRAL",
    "nombre": "Casa Central",
    "direccion": "Av. 18 de Julio 1234",
    "ciudad": "Montevideo",
    "departamento": "Montevideo",
    "telefono": "29001235",
    "email": null,
    "CodigoCasaDgi": 1,
    "habilitada": true,
    "tieneLogo": false,
    "codigosDgi": []
  },
  "getSucursalByIdCodigoDgi": {
    "idSucursal": 1,
    "fecha": "2026-11-28",
    "codigoDgiSucursal": 1,
    "origen": "sucursal"
  },
  "getSucursalGetCodigoComercio": {
    "idSucursal": 1,
    "idEmpresa": 1,
    "codComercio": "CENTRAL"
  },
  "getSucursalGetEmpresasSucursales": {
    "data": [
      {
        "idEmpresa": 1,
        "rut": "219999830019",
        "razonSocial": "Almacén La Estrella S.A.",
        "sucursales": [
          {
            "idSucursal": 1,
            "codComercio": "CENTRAL",
            "nombre": "Casa Central"
          }
        ]
      },
      {
        "idEmpresa": 2,
        "rut": "211000010012",
        "razonSocial": "Empresa 2 S.A.",
        "sucursales": [
          {
            "idSucursal": 2,
            "codComercio": "C1",
            "nombre": "Casa Central"
          }
        ]
      }
    ],
    "total": 2,
    "start": 0,
    "length": 50
  },
  "getSucursalTodas": {
    "data": [
      {
        "id": 1,
        "idEmpresa": 1,
        "codComercio": "CENTRAL",
        "nombre": "Casa Central",
        "direccion": "Av. 18 de Julio 1234",
        "ciudad": "Montevideo",
        "departamento": "Montevideo",
        "telefono": "29001235",
        "email": null,
        "CodigoCasaDgi": 1,
        "habilitada": true,
        "tieneLogo": false,
        "codigosDgi": []
      }
    ],
    "total": 1,
    "start": 0,
    "length": 50
  },
  "getUsageSettings": {
    "idEmpresa": 1,
    "graciaHoras": 48,
    "usoTardio": "marcar"
  },
  "getUsuarioByIdUsuarioEmpresas": [
    {
      "idEmpresa": 1,
      "rut": "219999830019",
      "razonSocial": "Almacén La Estrella S.A.",
      "habilitada": true,
      "rol": "emisor"
    }
  ],
  "getUsuarioEmpresas": [
    {
      "idEmpresa": 1,
      "rut": "219999830019",
      "razonSocial": "Almacén La Estrella S.A.",
      "habilitada": true,
      "rol": "administrador"
    },
    {
      "idEmpresa": 2,
      "rut": "211000010012",
      "razonSocial": "Empresa 2 S.A.",
      "habilitada": true,
      "rol": "administrador"
    }
  ],
  "getUsuarioTodos": {
    "data": [
      {
        "id": 2,
        "usuario": "caja1@laestrella.com.uy",
        "nombre": "Caja 1 (turno mañana)",
        "habilitado": true,
        "bloqueado": false,
        "operador": false,
        "empresas": [
          {
            "idEmpresa": 1,
            "rol": "emisor"
          }
        ]
      }
    ],
    "total": 1,
    "start": 0,
    "length": 50
  },
  "getWebhooks": {
    "data": [
      {
        "id": 1,
        "idEmpresa": 1,
        "name": "ERP: comprobantes emitidos",
        "url": "https://erp.laestrella.com.uy/webhooks/cfe",
        "events": [
          "Cfe.Emitido",
          "Cfe.RechazadoDgi"
        ],
        "enabled": true,
        "hasSecret": true,
        "headers": {},
        "maxAttempts": 8,
        "createdAt": "2026-11-28T18:17:17.904Z",
        "updatedAt": "2026-11-28T18:17:17.912Z"
      }
    ],
    "total": 1,
    "start": 0,
    "length": 50
  },
  "getWebhooksById": {
    "id": 1,
    "idEmpresa": 1,
    "name": "ERP: comprobantes emitidos",
    "url": "https://erp.laestrella.com.uy/webhooks/cfe",
    "events": [
      "Cfe.Emitido",
      "Cfe.RechazadoDgi"
    ],
    "enabled": true,
    "hasSecret": true,
    "headers": {},
    "maxAttempts": 8,
    "createdAt": "2026-11-28T18:17:17.904Z",
    "updatedAt": "2026-11-28T18:17:17.912Z"
  },
  "getWebhooksByIdEntregas": {
    "data": [
      {
        "id": 1,
        "eventId": "evt_31",
        "eventType": "Webhook.Prueba",
        "status": "pendiente",
        "attempts": 0,
        "nextAttemptAt": "2026-11-28T18:17:17.915Z",
        "idempotencyKey": "b9ec2e52-1150-40de-9eb6-6b22969123ed",
        "lastStatusCode": null,
        "lastError": null,
        "deliveredAt": null,
        "createdAt": "2026-11-28T18:17:17.914Z",
        "intentos": []
      }
    ],
    "total": 1,
    "start": 0,
    "length": 50
  },
  "getWebhooksByIdEntregasByIdEntrega": {
    "id": 1,
    "eventId": "evt_31",
    "eventType": "Webhook.Prueba",
    "status": "pendiente",
    "attempts": 0,
    "nextAttemptAt": "2026-11-28T18:17:17.915Z",
    "idempotencyKey": "b9ec2e52-1150-40de-9eb6-6b22969123ed",
    "lastStatusCode": null,
    "lastError": null,
    "deliveredAt": null,
    "createdAt": "2026-11-28T18:17:17.914Z",
    "intentos": []
  },
  "getWebhooksCatalogo": [
    {
      "type": "OrdenDeVenta.Creada",
      "description": "A new sales order is created (spec 6 #1).",
      "data": "the sales order (see GET /api/v1/ordenventa/{id})",
      "emitted": true
    },
    {
      "type": "OrdenDeVenta.Actualizada",
      "description": "A sales order changes data or state (spec 6 #2).",
      "data": "the sales order after the change",
      "emitted": true
    }
  ],
  "patchContractsById": {
    "id": 1,
    "idEmpresa": 1,
    "idCliente": 1,
    "idExterno": "CTR-77",
    "estado": "borrador",
    "estadoDesde": "2026-11-28T18:17:17.497Z",
    "metricas": [
      "api_calls"
    ],
    "inicio": "2026-11-01T03:00:00.000Z",
    "fin": "2027-11-01T02:59:59.000Z",
    "creadoEn": "2026-11-28T18:17:17.497Z",
    "actualizadoEn": "2026-11-28T18:17:17.501Z"
  },
  "patchMetricsById": {
    "id": 1,
    "idEmpresa": 1,
    "codigo": "api_calls",
    "nombre": "Llamadas a la API (todas las regiones)",
    "unidad": "llamadas",
    "agregacion": "count",
    "propiedad": null,
    "clavesAgrupacion": [
      "region"
    ],
    "creadoEn": "2026-11-28T18:17:17.469Z",
    "actualizadoEn": "2026-11-28T18:17:17.474Z"
  },
  "patchWebhooksById": {
    "id": 1,
    "idEmpresa": 1,
    "name": "ERP: comprobantes emitidos",
    "url": "https://erp.laestrella.com.uy/webhooks/cfe",
    "events": [
      "Cfe.Emitido",
      "Cfe.RechazadoDgi"
    ],
    "enabled": true,
    "hasSecret": true,
    "headers": {},
    "maxAttempts": 8,
    "createdAt": "2026-11-28T18:17:17.904Z",
    "updatedAt": "2026-11-28T18:17:17.907Z"
  },
  "postAuthLogin": {
    "accessToken": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxIiwidHYiOjAsImlhdCI6MTc5NTg4OTgzMCwiZXhwIjoxNzk1ODkwNzMwfQ.30RjZYO8UeusIp23ZogtQbHJ-UTEaoV2NbKup7jlS4o",
    "refreshToken": "Yi0DUtj4-L6em8e06gNnbWAjAQdbipD_chYZNL61aa0",
    "tokenType": "Bearer",
    "expiresIn": 900
  },
  "postAuthRecuperarClave": {
    "mensaje": "Si el usuario existe, le enviamos un correo con instrucciones para restablecer la contraseña."
  },
  "postAuthRefresh": {
    "accessToken": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxIiwidHYiOjAsImlhdCI6MTc5NTg4OTgzMCwiZXhwIjoxNzk1ODkwNzMwfQ.30RjZYO8UeusIp23ZogtQbHJ-UTEaoV2NbKup7jlS4o",
    "refreshToken": "dg5triwW2OZLSldq_YTrS7SLpmUORQTd0Xtgs2ylYT8",
    "tokenType": "Bearer",
    "expiresIn": 900
  },
  "postAuthRevokeAllTokens": {
    "revocados": 1
  },
  "postAuthRevokeByRefreshToken": {
    "revocados": 1
  },
  "postCaeAjustarProximoNumero": {
    "id": 1,
    "idEmpresa": 1,
    "idSucursal": 1,
    "tipoCfe": 101,
    "serie": "A",
    "desde": 1,
    "hasta": 1000,
    "numeroCae": "90260000014",
    "fechaAutorizacion": "2026-11-28",
    "fechaVencimiento": "2027-11-28",
    "caeEspecial": null,
    "causalCaeEspecial": null,
    "origen": "xml",
    "proximoNumero": 101,
    "utilizados": 0,
    "anulados": 100,
    "disponibles": 900,
    "vencido": false,
    "anulado": false,
    "estado": "vigente"
  },
  "postCaeAltaCfc": {
    "id": 1,
    "idEmpresa": 1,
    "tipoCFC": 201,
    "serie": "B",
    "desde": 1,
    "hasta": 200,
    "constancia": "90260000511",
    "fechaVencimiento": "2028-06-30",
    "vencido": false,
    "utilizados": 0
  },
  "postCaeAnularCompleto": {
    "id": 3,
    "idEmpresa": 1,
    "idSucursal": null,
    "tipoCfe": 112,
    "serie": "A",
    "desde": 1,
    "hasta": 500,
    "numeroCae": "90260000030",
    "fechaAutorizacion": "2026-11-02",
    "fechaVencimiento": "2028-11-01",
    "caeEspecial": null,
    "causalCaeEspecial": null,
    "origen": "manual",
    "proximoNumero": null,
    "utilizados": 0,
    "anulados": 500,
    "disponibles": 0,
    "vencido": false,
    "anulado": true,
    "estado": "anulado"
  },
  "postCaeEditarCfc": {
    "id": 1,
    "idEmpresa": 1,
    "tipoCFC": 201,
    "serie": "B",
    "desde": 1,
    "hasta": 200,
    "constancia": "90260000512",
    "fechaVencimiento": "2028-06-30",
    "vencido": false,
    "utilizados": 0
  },
  "postCaeImportar": {
    "id": 1,
    "idEmpresa": 1,
    "idSucursal": null,
    "tipoCfe": 101,
    "serie": "A",
    "desde": 1,
    "hasta": 1000,
    "numeroCae": "90260000014",
    "fechaAutorizacion": "2026-11-28",
    "fechaVencimiento": "2027-11-28",
    "caeEspecial": null,
    "causalCaeEspecial": null,
    "origen": "xml",
    "proximoNumero": 1,
    "utilizados": 0,
    "anulados": 0,
    "disponibles": 1000,
    "vencido": false,
    "anulado": false,
    "estado": "vigente"
  },
  "postCaeImportarManual": {
    "id": 3,
    "idEmpresa": 1,
    "idSucursal": null,
    "tipoCfe": 112,
    "serie": "A",
    "desde": 1,
    "hasta": 500,
    "numeroCae": "90260000030",
    "fechaAutorizacion": "2026-11-02",
    "fechaVencimiento": "2028-11-01",
    "caeEspecial": null,
    "causalCaeEspecial": null,
    "origen": "manual",
    "proximoNumero": 1,
    "utilizados": 0,
    "anulados": 0,
    "disponibles": 500,
    "vencido": false,
    "anulado": false,
    "estado": "vigente"
  },
  "postCaeModificarSucursal": {
    "id": 1,
    "idEmpresa": 1,
    "idSucursal": 1,
    "tipoCfe": 101,
    "serie": "A",
    "desde": 1,
    "hasta": 1000,
    "numeroCae": "90260000014",
    "fechaAutorizacion": "2026-11-28",
    "fechaVencimiento": "2027-11-28",
    "caeEspecial": null,
    "causalCaeEspecial": null,
    "origen": "xml",
    "proximoNumero": 1,
    "utilizados": 0,
    "anulados": 0,
    "disponibles": 1000,
    "vencido": false,
    "anulado": false,
    "estado": "vigente"
  },
  "postCaeValidar": {
    "valido": true,
    "problemas": [],
    "advertencias": [],
    "datos": {
      "rucE": "219999830019",
      "tipoCfe": 101,
      "serie": "A",
      "dNro": 1,
      "hNro": 1000,
      "ta": "E",
      "na": "90260000014",
      "fa": "2026-11-28",
      "fvd": "2027-11-28",
      "tmstFrma": "2026-11-28T15:17:13-03:00"
    },
    "firmante": {
      "subject": "CN=DGI-RUC PRUEBA CEDE, serialNumber=RUC219999830019, O=DGI-RUC PRUEBA CEDE, C=UY",
      "issuer": "CN=Simulador DGI - CA de prueba, OU=Testing, O=CFE Test PKI, C=UY",
      "serialNumber": "158686716517199876647221786647304614803",
      "notBefore": "2026-11-28T18:16:12.000Z",
      "notAfter": "2028-11-28T18:16:12.000Z"
    }
  },
  "postCfeemitidoByIdMarcarAceptado": {
    "id": 3,
    "estado": "aceptado_manual",
    "estadoReceptor": null,
    "historial": [
      {
        "lado": "dgi",
        "estadoAnterior": null,
        "estado": "firmado",
        "codigo": null,
        "motivos": null,
        "mensaje": null,
        "referencia": null,
        "idUsuario": null,
        "motivo": null,
        "fecha": "2026-11-28T18:17:15.800Z"
      },
      {
        "lado": "dgi",
        "estadoAnterior": "firmado",
        "estado": "aceptado_manual",
        "codigo": "MANUAL",
        "motivos": null,
        "mensaje": "Marcado como aceptado manualmente",
        "referencia": null,
        "idUsuario": 1,
        "motivo": "Aceptado según consulta en el portal de DGI del 27/11/2026",
        "fecha": "2026-11-28T18:17:15.818Z"
      }
    ]
  },
  "postCfeemitidoConfiguracionExportacionCfe": {
    "userId": 1,
    "idEmpresa": 1,
    "columnas": [
      "fechaEmision",
      "nombreTipoCfe"
    ],
    "predeterminada": false,
    "catalogo": [
      {
        "clave": "id",
        "titulo": "Id",
        "tipo": "integer"
      },
      {
        "clave": "fechaEmision",
        "titulo": "Fecha emisión",
        "tipo": "date"
      }
    ]
  },
  "postCfeemitidoEnviarPdfPorCorreo": {
    "id": 1,
    "idCfe": 1,
    "idEmpresa": 1,
    "destinatarios": [
      "compras@clientedemo.com.uy"
    ],
    "asunto": "Su comprobante de La Estrella",
    "formato": "A4",
    "estado": "pendiente",
    "intentos": 0,
    "ultimoError": null,
    "codigoSmtp": null,
    "messageId": null,
    "transporte": null,
    "idUsuario": 1,
    "fechaSolicitud": "2026-11-28T18:17:15.622Z",
    "fechaEnvio": null
  },
  "postCferecibidoAceptar": {
    "resultados": [
      {
        "id": 1,
        "resultado": "hecho",
        "estado": "aceptado"
      }
    ],
    "hechos": 1,
    "fallidos": 0,
    "repetida": false
  },
  "postCferecibidoConciliar": {
    "id": 1,
    "idEmpresa": 1,
    "desde": "2026-11-01",
    "hasta": "2026-11-27",
    "rutEmisor": null,
    "consultasDgi": 1,
    "cantidadDgi": 0,
    "cantidadLocal": 0,
    "conteos": {
      "faltante_en_buzon": 0,
      "no_registrado_en_dgi": 0,
      "diferencia_estado": 0,
      "diferencia_monto": 0
    },
    "items": [],
    "idUsuario": 1,
    "creadoEn": "2026-11-28T18:17:17.185Z"
  },
  "postCferecibidoConfiguracionExportacionCfe": {
    "userId": 1,
    "idEmpresa": 1,
    "columnas": [
      "fechaEmision",
      "rutEmisor"
    ],
    "predeterminada": false,
    "catalogo": [
      {
        "clave": "id",
        "titulo": "Id",
        "tipo": "integer"
      },
      {
        "clave": "secuencia",
        "titulo": "Secuencia",
        "tipo": "integer"
      }
    ]
  },
  "postCferecibidoConsultarQr": {
    "solicitados": [
      1
    ],
    "noConsultables": [],
    "noEncontrados": []
  },
  "postCferecibidoImportar": {
    "sobre": {
      "id": 1,
      "estado": "AS",
      "motivos": [],
      "repetido": false,
      "sinSobre": false
    },
    "cfes": [
      {
        "id": 1,
        "idEmpresa": 1,
        "secuencia": 1,
        "canal": "importacion",
        "sobre": {
          "id": 1,
          "rutEmisor": "211000010012",
          "idEmisor": 2,
          "fecha": "2026-11-28T15:17:16-03:00",
          "cantidadCfe": 2,
          "estado": "AS",
          "sinSobre": false,
          "nroOrdinal": 1,
          "verificaciones": [
            {
              "control": "tamano",
              "ok": true
            },
            {
              "control": "formato",
              "ok": true
            }
          ]
        },
        "rutEmisor": "211000010012",
        "razonSocialEmisor": "Empresa 2 S.A.",
        "tipoCfe": 111,
        "serie": "A",
        "numero": 1,
        "fechaEmision": "2026-11-28",
        "tmstFirma": "2026-11-28T15:17:16-03:00",
        "moneda": "UYU",
        "tipoCambio": null,
        "mntTotal": "15250.00",
        "mntPagar": "15250.00",
        "datos": {
          "idDoc": {
            "TipoCFE": 111,
            "Serie": "A",
            "Nro": 1,
            "FchEmis": "2026-11-28",
            "FmaPago": 1
          },
          "emisor": {
            "RUCEmisor": "211000010012",
            "RznSoc": "Empresa 2 S.A.",
            "EmiSucursal": "Casa Central",
            "CdgDGISucur": 2,
            "DomFiscal": "Av. 18 de Julio 1234",
            "Ciudad": "Montevideo",
            "Departamento": "Montevideo"
          },
          "receptor": {
            "TipoDocRecep": 2,
            "CodPaisRecep": "UY",
            "DocRecep": "219999830019",
            "RznSocRecep": "Almacén La Estrella S.A.",
            "DirRecep": "Av. 18 de Julio 1234",
            "CiudadRecep": "Montevideo"
          },
          "totales": {
            "TpoMoneda": "UYU",
            "MntNetoIVATasaBasica": "12500.00",
            "IVATasaMin": "10.000",
            "IVATasaBasica": "22.000",
            "MntIVATasaBasica": "2750.00",
            "MntTotal": "15250.00",
            "CantLinDet": 1,
            "MntPagar": "15250.00"
          },
          "detalle": [
            {
              "NroLinDet": 1,
              "IndFact": 3,
              "NomItem": "Cajas de cartón",
              "Cantidad": "10",
              "UniMed": "N/A",
              "PrecioUnitario": "1250.00",
              "MontoItem": "12500.00"
            }
          ],
          "referencias": [],
          "caeData": {
            "CAE_ID": "90260000203",
            "DNro": 1,
            "HNro": 100000,
            "FecVenc": "2027-12-31"
          }
        },
        "adenda": null,
        "verificaciones": [
          {
            "control": "xsd_cfe",
            "ok": true,
            "detalle": "Validado con el XSD del sobre (CFEDefType)."
          },
          {
            "control": "firma",
            "ok": true
          }
        ],
        "estado": "pendiente",
        "motivos": [],
        "vencimientoRespuesta": "2026-12-28",
        "decididoEn": null,
        "idRespuesta": null,
        "recibidoEn": "2026-11-28T18:17:16.992Z",
        "importadoStock": null
      },
      {
        "id": 2,
        "idEmpresa": 1,
        "secuencia": 2,
        "canal": "importacion",
        "sobre": {
          "id": 1,
          "rutEmisor": "211000010012",
          "idEmisor": 2,
          "fecha": "2026-11-28T15:17:16-03:00",
          "cantidadCfe": 2,
          "estado": "AS",
          "sinSobre": false,
          "nroOrdinal": 2,
          "verificaciones": [
            {
              "control": "tamano",
              "ok": true
            },
            {
              "control": "formato",
              "ok": true
            }
          ]
        },
        "rutEmisor": "211000010012",
        "razonSocialEmisor": "Empresa 2 S.A.",
        "tipoCfe": 111,
        "serie": "A",
        "numero": 2,
        "fechaEmision": "2026-11-28",
        "tmstFirma": "2026-11-28T15:17:16-03:00",
        "moneda": "UYU",
        "tipoCambio": null,
        "mntTotal": "10492.00",
        "mntPagar": "10492.00",
        "datos": {
          "idDoc": {
            "TipoCFE": 111,
            "Serie": "A",
            "Nro": 2,
            "FchEmis": "2026-11-28",
            "FmaPago": 1
          },
          "emisor": {
            "RUCEmisor": "211000010012",
            "RznSoc": "Empresa 2 S.A.",
            "EmiSucursal": "Casa Central",
            "CdgDGISucur": 2,
            "DomFiscal": "Av. 18 de Julio 1234",
            "Ciudad": "Montevideo",
            "Departamento": "Montevideo"
          },
          "receptor": {
            "TipoDocRecep": 2,
            "CodPaisRecep": "UY",
            "DocRecep": "219999830019",
            "RznSocRecep": "Almacén La Estrella S.A.",
            "DirRecep": "Av. 18 de Julio 1234",
            "CiudadRecep": "Montevideo"
          },
          "totales": {
            "TpoMoneda": "UYU",
            "MntNetoIVATasaBasica": "8600.00",
            "IVATasaMin": "10.000",
            "IVATasaBasica": "22.000",
            "MntIVATasaBasica": "1892.00",
            "MntTotal": "10492.00",
            "CantLinDet": 1,
            "MntPagar": "10492.00"
          },
          "detalle": [
            {
              "NroLinDet": 1,
              "IndFact": 3,
              "NomItem": "Cajas de cartón",
              "Cantidad": "10",
              "UniMed": "N/A",
              "PrecioUnitario": "860.00",
              "MontoItem": "8600.00"
            }
          ],
          "referencias": [],
          "caeData": {
            "CAE_ID": "90260000203",
            "DNro": 1,
            "HNro": 100000,
            "FecVenc": "2027-12-31"
          }
        },
        "adenda": null,
        "verificaciones": [
          {
            "control": "xsd_cfe",
            "ok": true,
            "detalle": "Validado con el XSD del sobre (CFEDefType)."
          },
          {
            "control": "firma",
            "ok": true
          }
        ],
        "estado": "pendiente",
        "motivos": [],
        "vencimientoRespuesta": "2026-12-28",
        "decididoEn": null,
        "idRespuesta": null,
        "recibidoEn": "2026-11-28T18:17:16.992Z",
        "importadoStock": null
      }
    ],
    "respuestas": [
      {
        "id": 1,
        "tipo": "ACKSobre",
        "archivo": "M_1_Sob_211000010012_20261128_2.xml",
        "estado": "pendiente",
        "email": "facturacion@distribuidoradeleste.com.uy",
        "enviadoEn": null,
        "transporte": null,
        "ultimoError": null,
        "enlace": "/api/v1/cferecibido/respuesta/1"
      }
    ]
  },
  "postCferecibidoMarcarComoImportadoStockById": {
    "id": 1,
    "importadoStock": {
      "referencia": "REM-2026-0457",
      "lineas": [
        {
          "nroLinea": 1,
          "cantidad": "10"
        }
      ],
      "fecha": "2026-11-28T18:17:17.087Z",
      "idUsuario": 1
    },
    "repetido": false
  },
  "postCferecibidoRechazar": {
    "resultados": [
      {
        "id": 2,
        "resultado": "hecho",
        "estado": "rechazado"
      }
    ],
    "hechos": 1,
    "fallidos": 0,
    "repetida": false
  },
  "postClienteCrear": {
    "id": 1,
    "idEmpresa": 1,
    "tipoDocumento": 2,
    "codPais": "UY",
    "documento": "210475730011",
    "razonSocial": "Distribuidora del Este S.R.L.",
    "direccion": "Ruta 8 km 20",
    "ciudad": "Pando",
    "departamento": "Canelones",
    "pais": null,
    "codigoPostal": null,
    "email": "compras@distribuidoradeleste.com.uy",
    "emisorElectronico": true,
    "emailIntercambio": null
  },
  "postClienteEditar": {
    "id": 1,
    "idEmpresa": 1,
    "tipoDocumento": 2,
    "codPais": "UY",
    "documento": "210475730011",
    "razonSocial": "Distribuidora del Este S.R.L.",
    "direccion": "Ruta 8 km 20",
    "ciudad": "Pando",
    "departamento": "Canelones",
    "pais": null,
    "codigoPostal": null,
    "email": "compras@distribuidoradeleste.com.uy",
    "emisorElectronico": true,
    "emailIntercambio": "cfe@distribuidoradeleste.com.uy"
  },
  "postComprobanteEmitir": {
    "id": 1,
    "idEmpresa": 1,
    "idSucursal": 1,
    "idPuntoEmision": 1,
    "tipoCfe": 101,
    "nombreTipoCfe": "e-Ticket",
    "serie": "A",
    "numero": 101,
    "fechaEmision": "2026-11-28",
    "fechaFirma": "2026-11-28T15:17:14-03:00",
    "estado": "firmado",
    "cae": {
      "numero": "90260000014",
      "desde": 1,
      "hasta": 1000,
      "fechaVencimiento": "2027-11-28"
    },
    "codigoSeguridad": "h3us5F",
    "hash": "h3us5FZW4sxfhnJp0Cm6Gsz/3Hk9S0iNW/P8CvmtaY0=",
    "urlQr": "https://www.efactura.dgi.gub.uy/consultaQR/cfe?219999830019,101,A,101,444.30,28/11/2026,h3us5FZW4sxfhnJp0Cm6Gsz%2F3Hk9S0iNW%2FP8CvmtaY0%3D",
    "qrPng": "iVBORw0KGgoAAAANSUhEUgAAAP8AAAD/AQAAAAAWcz1nAAADsElEQVR4Ae39…",
    "moneda": "UYU",
    "tipoCambio": null,
    "totales": {
      "TpoMoneda": "UYU",
      "MntNetoIvaTasaMin": "58.64",
      "MntNetoIVATasaBasica": "311.31",
      "IVATasaMin": "10.000",
      "IVATasaBasica": "22.000",
      "MntIVATasaMin": "5.86",
      "MntIVATasaBasica": "68.49",
      "MntTotal": "444.30",
      "CantLinDet": 2,
      "MntPagar": "444.30"
    },
    "idDoc": {
      "TipoCFE": "101",
      "Serie": "A",
      "Nro": "101",
      "FchEmis": "2026-11-28",
      "MntBruto": "1",
      "FmaPago": "1"
    },
    "emisor": {
      "RUCEmisor": "219999830019",
      "RznSoc": "Almacén La Estrella S.A.",
      "NomComercial": "La Estrella",
      "GiroEmis": "Comercio minorista de alimentos",
      "Telefono": [
        "29001235"
      ],
      "CorreoEmisor": "facturacion@laestrella.com.uy",
      "EmiSucursal": "Casa Central",
      "CdgDGISucur": "1",
      "DomFiscal": "Av. 18 de Julio 1234",
      "Ciudad": "Montevideo",
      "Departamento": "Montevideo"
    },
    "receptor": null,
    "detalles": [
      {
        "NroLinDet": "1",
        "IndFact": "3",
        "NomItem": "Yerba mate 1 kg",
        "Cantidad": "2",
        "UniMed": "N/A",
        "PrecioUnitario": "189.90",
        "MontoItem": "379.80"
      },
      {
        "NroLinDet": "2",
        "IndFact": "2",
        "NomItem": "Arroz 1 kg",
        "Cantidad": "1",
        "UniMed": "N/A",
        "PrecioUnitario": "64.50",
        "MontoItem": "64.50"
      }
    ],
    "descuentosRecargos": [],
    "mediosPago": [
      {
        "NroLinMP": "1",
        "CodMP": "1",
        "GlosaMP": "Efectivo",
        "ValorPago": "444.30"
      }
    ],
    "referencias": [],
    "complementoFiscal": null,
    "adenda": null,
    "idempotencyKey": "caja1-2026-11-27-000123"
  },
  "postComprobanteFirmarXml": {
    "xml": "<CFE xmlns=\"http://cfe.dgi.gub.uy\" version=\"1.0\"><eTck><Tmst…",
    "digestValue": "h3us5FZW4sxfhnJp0Cm6Gsz/3Hk9S0iNW/P8CvmtaY0=",
    "codigoSeguridad": "h3us5F"
  },
  "postComprobantePrevisualizar": {
    "token": "hwUz9-4R8eV-RHtLtgAlzW6KWZDNsT6_",
    "url": "/api/v1/comprobante/previsualizar/hwUz9-4R8eV-RHtLtgAlzW6KWZDNsT6_",
    "formato": "A4",
    "expiraEn": "2026-11-28T18:32:14.536Z",
    "bytes": 3337
  },
  "postComprobanteTranscribirContingencia": {
    "id": 2,
    "idEmpresa": 1,
    "idSucursal": 1,
    "idPuntoEmision": 1,
    "tipoCfe": 201,
    "nombreTipoCfe": "e-Ticket (contingencia)",
    "serie": "B",
    "numero": 1,
    "fechaEmision": "2026-11-28",
    "fechaFirma": "2026-11-28T15:17:15-03:00",
    "estado": "firmado",
    "cae": {
      "numero": "90260000512",
      "desde": 1,
      "hasta": 200,
      "fechaVencimiento": "2028-06-30"
    },
    "codigoSeguridad": "k5WBVR",
    "hash": "k5WBVRR5b3O3EjwoAGlYDGdPhA4YMd53hWud8KoK8Ho=",
    "urlQr": "https://www.efactura.dgi.gub.uy/consultaQR/cfe?219999830019,201,B,1,231.68,28/11/2026,k5WBVRR5b3O3EjwoAGlYDGdPhA4YMd53hWud8KoK8Ho%3D",
    "qrPng": "iVBORw0KGgoAAAANSUhEUgAAAP8AAAD/AQAAAAAWcz1nAAADs0lEQVR4Ae39…",
    "moneda": "UYU",
    "tipoCambio": null,
    "totales": {
      "TpoMoneda": "UYU",
      "MntNetoIVATasaBasica": "189.90",
      "IVATasaMin": "10.000",
      "IVATasaBasica": "22.000",
      "MntIVATasaBasica": "41.78",
      "MntTotal": "231.68",
      "CantLinDet": 1,
      "MntPagar": "231.68"
    },
    "idDoc": {
      "TipoCFE": "201",
      "Serie": "B",
      "Nro": "1",
      "FchEmis": "2026-11-28",
      "FmaPago": "1"
    },
    "emisor": {
      "RUCEmisor": "219999830019",
      "RznSoc": "Almacén La Estrella S.A.",
      "NomComercial": "La Estrella",
      "GiroEmis": "Comercio minorista de alimentos",
      "Telefono": [
        "29001235"
      ],
      "CorreoEmisor": "facturacion@laestrella.com.uy",
      "EmiSucursal": "Casa Central",
      "CdgDGISucur": "1",
      "DomFiscal": "Av. 18 de Julio 1234",
      "Ciudad": "Montevideo",
      "Departamento": "Montevideo"
    },
    "receptor": null,
    "detalles": [
      {
        "NroLinDet": "1",
        "IndFact": "3",
        "NomItem": "Yerba mate 1 kg",
        "Cantidad": "1",
        "UniMed": "N/A",
        "PrecioUnitario": "189.90",
        "MontoItem": "189.90"
      }
    ],
    "descuentosRecargos": [],
    "mediosPago": [],
    "referencias": [],
    "complementoFiscal": null,
    "adenda": null,
    "idempotencyKey": null
  },
  "postContracts": {
    "id": 1,
    "idEmpresa": 1,
    "idCliente": 1,
    "idExterno": "CTR-77",
    "estado": "borrador",
    "estadoDesde": "2026-11-28T18:17:17.497Z",
    "metricas": [
      "api_calls"
    ],
    "inicio": "2026-11-01T03:00:00.000Z",
    "fin": null,
    "creadoEn": "2026-11-28T18:17:17.497Z",
    "actualizadoEn": "2026-11-28T18:17:17.497Z"
  },
  "postContractsByIdActivar": {
    "idContrato": 1,
    "estado": "activo",
    "desde": "2026-11-28T18:17:17.514Z",
    "motivo": {
      "tipo": "manual",
      "accion": "activar",
      "reglas": [],
      "usuario": "admin@test.uy"
    },
    "suspensionManual": false,
    "periodoAbierto": {
      "desde": "2026-11-01",
      "hasta": "2026-11-30",
      "inicio": "2026-11-01T03:00:00.000Z",
      "fin": "2026-12-01T03:00:00.000Z"
    },
    "moneda": "UYU",
    "idVersionListaPrecios": 1,
    "uso": [],
    "montoHastaAhora": "0.00",
    "reglas": [
      {
        "id": "fin-prueba-gratis",
        "objetivo": "unidades",
        "metrica": "api_calls",
        "umbral": "1",
        "accion": "advertir",
        "levantamiento": "manual",
        "valorObservado": "0",
        "alcanzada": false,
        "estado": "libre",
        "estadoDesde": null
      }
    ],
    "acciones": [
      "cancelar",
      "finalizar"
    ],
    "ultimoPeriodo": null,
    "alertaCierre": null
  },
  "postContractsByIdCancelar": {
    "idContrato": 1,
    "estado": "cancelado",
    "desde": "2026-11-28T18:17:17.894Z",
    "motivo": {
      "tipo": "manual",
      "accion": "cancelar",
      "reglas": [],
      "usuario": "admin@test.uy"
    },
    "suspensionManual": false,
    "periodoAbierto": {
      "desde": "2026-11-01",
      "hasta": "2026-11-30",
      "inicio": "2026-11-01T03:00:00.000Z",
      "fin": "2026-12-01T03:00:00.000Z"
    },
    "moneda": "UYU",
    "idVersionListaPrecios": 1,
    "uso": [
      {
        "metrica": "api_calls",
        "cantidad": "1"
      }
    ],
    "montoHastaAhora": "0.50",
    "reglas": [
      {
        "id": "fin-prueba-gratis",
        "objetivo": "unidades",
        "metrica": "api_calls",
        "umbral": "1",
        "accion": "advertir",
        "levantamiento": "manual",
        "valorObservado": "1",
        "alcanzada": true,
        "estado": "levantada",
        "estadoDesde": "2026-11-28T18:17:17.861Z"
      }
    ],
    "acciones": [],
    "ultimoPeriodo": null,
    "alertaCierre": null
  },
  "postContractsByIdLevantar": {
    "idContrato": 1,
    "estado": "activo",
    "desde": "2026-11-28T18:17:17.861Z",
    "motivo": {
      "tipo": "manual",
      "reglas": [
        "fin-prueba-gratis"
      ],
      "usuario": "admin@test.uy"
    },
    "suspensionManual": false,
    "periodoAbierto": {
      "desde": "2026-11-01",
      "hasta": "2026-11-30",
      "inicio": "2026-11-01T03:00:00.000Z",
      "fin": "2026-12-01T03:00:00.000Z"
    },
    "moneda": "UYU",
    "idVersionListaPrecios": 1,
    "uso": [
      {
        "metrica": "api_calls",
        "cantidad": "1"
      }
    ],
    "montoHastaAhora": "0.50",
    "reglas": [
      {
        "id": "fin-prueba-gratis",
        "objetivo": "unidades",
        "metrica": "api_calls",
        "umbral": "1",
        "accion": "advertir",
        "levantamiento": "manual",
        "valorObservado": "1",
        "alcanzada": true,
        "estado": "levantada",
        "estadoDesde": "2026-11-28T18:17:17.861Z"
      }
    ],
    "acciones": [
      "cancelar",
      "finalizar"
    ],
    "ultimoPeriodo": null,
    "alertaCierre": null
  },
  "postContractsByIdReanudar": {
    "idContrato": 1,
    "estado": "activo",
    "desde": "2026-11-28T18:17:17.882Z",
    "motivo": {
      "tipo": "manual",
      "accion": "reanudar",
      "reglas": [],
      "usuario": "admin@test.uy"
    },
    "suspensionManual": false,
    "periodoAbierto": {
      "desde": "2026-11-01",
      "hasta": "2026-11-30",
      "inicio": "2026-11-01T03:00:00.000Z",
      "fin": "2026-12-01T03:00:00.000Z"
    },
    "moneda": "UYU",
    "idVersionListaPrecios": 1,
    "uso": [
      {
        "metrica": "api_calls",
        "cantidad": "1"
      }
    ],
    "montoHastaAhora": "0.50",
    "reglas": [
      {
        "id": "fin-prueba-gratis",
        "objetivo": "unidades",
        "metrica": "api_calls",
        "umbral": "1",
        "accion": "advertir",
        "levantamiento": "manual",
        "valorObservado": "1",
        "alcanzada": true,
        "estado": "levantada",
        "estadoDesde": "2026-11-28T18:17:17.861Z"
      }
    ],
    "acciones": [
      "cancelar",
      "finalizar"
    ],
    "ultimoPeriodo": null,
    "alertaCierre": null
  },
  "postContractsByIdSuspender": {
    "idContrato": 1,
    "estado": "suspendido",
    "desde": "2026-11-28T18:17:17.870Z",
    "motivo": {
      "tipo": "manual",
      "accion": "suspender",
      "reglas": [],
      "usuario": "admin@test.uy"
    },
    "suspensionManual": true,
    "periodoAbierto": {
      "desde": "2026-11-01",
      "hasta": "2026-11-30",
      "inicio": "2026-11-01T03:00:00.000Z",
      "fin": "2026-12-01T03:00:00.000Z"
    },
    "moneda": "UYU",
    "idVersionListaPrecios": 1,
    "uso": [
      {
        "metrica": "api_calls",
        "cantidad": "1"
      }
    ],
    "montoHastaAhora": "0.50",
    "reglas": [
      {
        "id": "fin-prueba-gratis",
        "objetivo": "unidades",
        "metrica": "api_calls",
        "umbral": "1",
        "accion": "advertir",
        "levantamiento": "manual",
        "valorObservado": "1",
        "alcanzada": true,
        "estado": "levantada",
        "estadoDesde": "2026-11-28T18:17:17.861Z"
      }
    ],
    "acciones": [
      "reanudar",
      "cancelar"
    ],
    "ultimoPeriodo": null,
    "alertaCierre": null
  },
  "postDgiTesting": {
    "id": 1,
    "idEmpresa": 1,
    "destino": "simulador",
    "cantidadPorTipo": 50,
    "estado": "en_curso",
    "progreso": null,
    "reporte": null,
    "error": null,
    "inicio": "2026-11-28T18:17:17.920Z",
    "fin": null
  },
  "postEmpresaAsignarCertificado": {
    "id": 1,
    "idEmpresa": 1,
    "sujeto": "CN=Almacén La Estrella S.A., serialNumber=RUC219999830019, O=Almacén La Estrella S.A., C=UY",
    "emisor": "CN=Simulador DGI - CA de prueba, OU=Testing, O=CFE Test PKI, C=UY",
    "numeroSerie": "71114887568256847474289162337317268800",
    "validoDesde": "2026-11-28T18:16:13.000Z",
    "validoHasta": "2028-11-28T18:16:13.000Z",
    "activo": true,
    "vigente": true,
    "venceEnDias": 730,
    "porVencer": false,
    "advertencias": []
  },
  "postEmpresaBeneficioFiscalDeclaracion": {
    "id": 1,
    "idEmpresa": 1,
    "anioFiscal": 2026,
    "regimen": "decreto_206_019",
    "fundamento": "ingresos_hasta_750000_ui",
    "estado": "vigente",
    "reemplazadaPor": null,
    "reemplazadaEn": null,
    "fechaDeclaracion": "2026-11-28T18:17:14.230Z",
    "fechaInicioEmisor": "2011-10-01",
    "fuenteFechaInicio": "registro_dgi",
    "hechos": {
      "empresa": {
        "rut": "219999830019",
        "ciudad": "Montevideo",
        "razonSocial": "Almacén La Estrella S.A.",
        "departamento": "Montevideo",
        "domicilioFiscal": "Av. 18 de Julio 1234",
        "regimenTributario": "general"
      },
      "valorUiCierre": "6.3110",
      "ingresosAnioAnterior": "3500000.00",
      "ingresosAnioAnteriorUi": "554587.23"
    },
    "declarante": {
      "nombre": "María Fernández",
      "documento": "45678905",
      "cargo": "Directora"
    }
  },
  "postEmpresaCotizacionesCargar": {
    "cargadas": 2
  },
  "postEmpresaCrear": {
    "id": 1,
    "rut": "219999830019",
    "razonSocial": "Almacén La Estrella S.A.",
    "nombreComercial": "La Estrella",
    "domicilioFiscal": "Av. 18 de Julio 1234",
    "ciudad": "Montevideo",
    "departamento": "Montevideo",
    "telefono": "29001234",
    "email": "facturacion@laestrella.com.uy",
    "actividad": "Comercio minorista de alimentos",
    "habilitada": true,
    "tieneLogo": false,
    "CodigoCasaDgiPorDefecto": 1
  },
  "postEmpresaDeshabilitarById": {
    "id": 1,
    "rut": "219999830019",
    "razonSocial": "Almacén La Estrella S.A.",
    "nombreComercial": "La Estrella",
    "domicilioFiscal": "Av. 18 de Julio 1234",
    "ciudad": "Montevideo",
    "departamento": "Montevideo",
    "telefono": "29005678",
    "email": "facturacion@laestrella.com.uy",
    "actividad": "Comercio minorista de alimentos",
    "habilitada": false,
    "tieneLogo": false,
    "CodigoCasaDgiPorDefecto": 1
  },
  "postEmpresaDeshabilitarPorRutByRut": {
    "id": 1,
    "rut": "219999830019",
    "razonSocial": "Almacén La Estrella S.A.",
    "nombreComercial": "La Estrella",
    "domicilioFiscal": "Av. 18 de Julio 1234",
    "ciudad": "Montevideo",
    "departamento": "Montevideo",
    "telefono": "29005678",
    "email": "facturacion@laestrella.com.uy",
    "actividad": "Comercio minorista de alimentos",
    "habilitada": false,
    "tieneLogo": false,
    "CodigoCasaDgiPorDefecto": 1
  },
  "postEmpresaEditar": {
    "id": 1,
    "rut": "219999830019",
    "razonSocial": "Almacén La Estrella S.A.",
    "nombreComercial": "La Estrella",
    "domicilioFiscal": "Av. 18 de Julio 1234",
    "ciudad": "Montevideo",
    "departamento": "Montevideo",
    "telefono": "29005678",
    "email": "facturacion@laestrella.com.uy",
    "actividad": "Comercio minorista de alimentos",
    "habilitada": true,
    "tieneLogo": false,
    "CodigoCasaDgiPorDefecto": 1
  },
  "postEmpresaHabilitarById": {
    "id": 1,
    "rut": "219999830019",
    "razonSocial": "Almacén La Estrella S.A.",
    "nombreComercial": "La Estrella",
    "domicilioFiscal": "Av. 18 de Julio 1234",
    "ciudad": "Montevideo",
    "departamento": "Montevideo",
    "telefono": "29005678",
    "email": "facturacion@laestrella.com.uy",
    "actividad": "Comercio minorista de alimentos",
    "habilitada": true,
    "tieneLogo": false,
    "CodigoCasaDgiPorDefecto": 1
  },
  "postEmpresaHabilitarPorRutByRut": {
    "id": 1,
    "rut": "219999830019",
    "razonSocial": "Almacén La Estrella S.A.",
    "nombreComercial": "La Estrella",
    "domicilioFiscal": "Av. 18 de Julio 1234",
    "ciudad": "Montevideo",
    "departamento": "Montevideo",
    "telefono": "29005678",
    "email": "facturacion@laestrella.com.uy",
    "actividad": "Comercio minorista de alimentos",
    "habilitada": true,
    "tieneLogo": false,
    "CodigoCasaDgiPorDefecto": 1
  },
  "postEmpresaImportarCertificado": {
    "id": 1,
    "idEmpresa": 1,
    "sujeto": "CN=Almacén La Estrella S.A., serialNumber=RUC219999830019, O=Almacén La Estrella S.A., C=UY",
    "emisor": "CN=Simulador DGI - CA de prueba, OU=Testing, O=CFE Test PKI, C=UY",
    "numeroSerie": "71114887568256847474289162337317268800",
    "validoDesde": "2026-11-28T18:16:13.000Z",
    "validoHasta": "2028-11-28T18:16:13.000Z",
    "activo": true,
    "vigente": true,
    "venceEnDias": 730,
    "porVencer": false,
    "advertencias": []
  },
  "postEmpresaVerificarEmailSaliente": {
    "ok": true,
    "transporte": "servicio",
    "messageId": "<ec2dcf01-0494-7a5a-f2c8-1f4b109aeddd@localhost.localdomain>",
    "destinatario": "contadora@laestrella.com.uy"
  },
  "postFacturacionrecurrenteActivarById": {
    "id": 1,
    "idEmpresa": 1,
    "estado": "activo",
    "version": 2,
    "accionesPermitidas": [
      "pausar",
      "cancelar"
    ],
    "proximaEjecucion": "2026-12-01T09:00:00.000Z",
    "proximoPeriodo": {
      "desde": "2026-12-01",
      "hasta": "2026-12-31"
    },
    "ciclosRestantes": null,
    "pausadoHasta": null,
    "motivoCancelacion": null,
    "ultimaEjecucion": null,
    "createdAt": "2026-11-28T18:17:17.292Z",
    "updatedAt": "2026-11-28T18:17:17.311Z",
    "nombre": "Mantenimiento mensual (contrato 2027)",
    "codComercio": "CENTRAL",
    "codTerminal": "CAJA1",
    "plantilla": {
      "idDoc": {
        "tipoCfe": 111,
        "formaPago": 2
      },
      "detalles": [
        {
          "cantidad": "1",
          "nombreItem": "Servicio de mantenimiento mensual",
          "precioUnitario": "12500.00",
          "indicadorFacturacion": 3
        }
      ],
      "receptor": {
        "idCliente": 1
      }
    },
    "frecuencia": {
      "unidad": "mes",
      "intervalo": 1
    },
    "anclaje": {},
    "horaEmision": "06:00",
    "zonaHoraria": "America/Montevideo",
    "fechaInicio": "2026-12-01",
    "fin": {
      "tipo": "nunca"
    },
    "periodo": {
      "modo": "adelantado"
    },
    "politicaAtrasos": "emitir_todos",
    "envioEmail": {
      "activo": false
    },
    "ejecucion": null
  },
  "postFacturacionrecurrenteCancelarById": {
    "id": 1,
    "idEmpresa": 1,
    "estado": "cancelado",
    "version": 2,
    "accionesPermitidas": [],
    "proximaEjecucion": null,
    "proximoPeriodo": null,
    "ciclosRestantes": null,
    "pausadoHasta": null,
    "motivoCancelacion": "El cliente rescindió el contrato",
    "ultimaEjecucion": {
      "idEjecucion": 2,
      "idPlan": 1,
      "version": 2,
      "claveEjecucion": "1:2027-01-01",
      "periodoDesde": "2027-01-01",
      "periodoHasta": "2027-01-31",
      "periodos": 1,
      "programadaPara": "2027-01-01T09:00:00.000Z",
      "ejecutadaEn": "2026-11-28T18:17:17.338Z",
      "resultado": "emitido",
      "origen": "manual",
      "idCfeEmitido": 7,
      "tipoCfe": 111,
      "serie": "A",
      "numero": 3,
      "estadoDgi": "firmado",
      "codigo": null,
      "motivo": null,
      "intento": 1,
      "proximoIntento": null,
      "acumuladaEn": null
    },
    "createdAt": "2026-11-28T18:17:17.292Z",
    "updatedAt": "2026-11-28T18:17:17.460Z",
    "nombre": "Mantenimiento mensual (contrato 2027)",
    "codComercio": "CENTRAL",
    "codTerminal": "CAJA1",
    "plantilla": {
      "idDoc": {
        "tipoCfe": 111,
        "formaPago": 2
      },
      "detalles": [
        {
          "cantidad": "1",
          "nombreItem": "Servicio de mantenimiento mensual",
          "precioUnitario": "12500.00",
          "indicadorFacturacion": 3
        }
      ],
      "receptor": {
        "idCliente": 1
      }
    },
    "frecuencia": {
      "unidad": "mes",
      "intervalo": 1
    },
    "anclaje": {},
    "horaEmision": "06:00",
    "zonaHoraria": "America/Montevideo",
    "fechaInicio": "2026-12-01",
    "fin": {
      "tipo": "nunca"
    },
    "periodo": {
      "modo": "adelantado"
    },
    "politicaAtrasos": "emitir_todos",
    "envioEmail": {
      "activo": false
    },
    "ejecucion": null
  },
  "postFacturacionrecurrenteCrear": {
    "id": 1,
    "idEmpresa": 1,
    "estado": "borrador",
    "version": 1,
    "accionesPermitidas": [
      "activar",
      "cancelar"
    ],
    "proximaEjecucion": null,
    "proximoPeriodo": null,
    "ciclosRestantes": null,
    "pausadoHasta": null,
    "motivoCancelacion": null,
    "ultimaEjecucion": null,
    "createdAt": "2026-11-28T18:17:17.292Z",
    "updatedAt": "2026-11-28T18:17:17.292Z",
    "nombre": "Mantenimiento mensual Distribuidora del Este",
    "codComercio": "CENTRAL",
    "codTerminal": "CAJA1",
    "plantilla": {
      "idDoc": {
        "tipoCfe": 111,
        "formaPago": 2
      },
      "detalles": [
        {
          "cantidad": "1",
          "nombreItem": "Servicio de mantenimiento mensual",
          "precioUnitario": "12500.00",
          "indicadorFacturacion": 3
        }
      ],
      "receptor": {
        "idCliente": 1
      }
    },
    "frecuencia": {
      "unidad": "mes",
      "intervalo": 1
    },
    "anclaje": {
      "diaDelMes": 1
    },
    "horaEmision": "06:00",
    "zonaHoraria": "America/Montevideo",
    "fechaInicio": "2026-12-01",
    "fin": {
      "tipo": "nunca"
    },
    "periodo": {
      "modo": "adelantado"
    },
    "politicaAtrasos": "emitir_todos",
    "envioEmail": {
      "activo": false
    }
  },
  "postFacturacionrecurrenteEditar": {
    "id": 1,
    "idEmpresa": 1,
    "estado": "borrador",
    "version": 2,
    "accionesPermitidas": [
      "activar",
      "cancelar"
    ],
    "proximaEjecucion": null,
    "proximoPeriodo": null,
    "ciclosRestantes": null,
    "pausadoHasta": null,
    "motivoCancelacion": null,
    "ultimaEjecucion": null,
    "createdAt": "2026-11-28T18:17:17.292Z",
    "updatedAt": "2026-11-28T18:17:17.298Z",
    "nombre": "Mantenimiento mensual (contrato 2027)",
    "codComercio": "CENTRAL",
    "codTerminal": "CAJA1",
    "plantilla": {
      "idDoc": {
        "tipoCfe": 111,
        "formaPago": 2
      },
      "detalles": [
        {
          "cantidad": "1",
          "nombreItem": "Servicio de mantenimiento mensual",
          "precioUnitario": "12500.00",
          "indicadorFacturacion": 3
        }
      ],
      "receptor": {
        "idCliente": 1
      }
    },
    "frecuencia": {
      "unidad": "mes",
      "intervalo": 1
    },
    "anclaje": {},
    "horaEmision": "06:00",
    "zonaHoraria": "America/Montevideo",
    "fechaInicio": "2026-12-01",
    "fin": {
      "tipo": "nunca"
    },
    "periodo": {
      "modo": "adelantado"
    },
    "politicaAtrasos": "emitir_todos",
    "envioEmail": {
      "activo": false
    }
  },
  "postFacturacionrecurrenteEmitirAhoraById": {
    "id": 1,
    "idEmpresa": 1,
    "estado": "activo",
    "version": 2,
    "accionesPermitidas": [
      "pausar",
      "cancelar"
    ],
    "proximaEjecucion": "2027-02-01T09:00:00.000Z",
    "proximoPeriodo": {
      "desde": "2027-02-01",
      "hasta": "2027-02-28"
    },
    "ciclosRestantes": null,
    "pausadoHasta": null,
    "motivoCancelacion": null,
    "ultimaEjecucion": {
      "idEjecucion": 2,
      "idPlan": 1,
      "version": 2,
      "claveEjecucion": "1:2027-01-01",
      "periodoDesde": "2027-01-01",
      "periodoHasta": "2027-01-31",
      "periodos": 1,
      "programadaPara": "2027-01-01T09:00:00.000Z",
      "ejecutadaEn": "2026-11-28T18:17:17.338Z",
      "resultado": "emitido",
      "origen": "manual",
      "idCfeEmitido": 7,
      "tipoCfe": 111,
      "serie": "A",
      "numero": 3,
      "estadoDgi": "firmado",
      "codigo": null,
      "motivo": null,
      "intento": 1,
      "proximoIntento": null,
      "acumuladaEn": null
    },
    "createdAt": "2026-11-28T18:17:17.292Z",
    "updatedAt": "2026-11-28T18:17:17.338Z",
    "nombre": "Mantenimiento mensual (contrato 2027)",
    "codComercio": "CENTRAL",
    "codTerminal": "CAJA1",
    "plantilla": {
      "idDoc": {
        "tipoCfe": 111,
        "formaPago": 2
      },
      "detalles": [
        {
          "cantidad": "1",
          "nombreItem": "Servicio de mantenimiento mensual",
          "precioUnitario": "12500.00",
          "indicadorFacturacion": 3
        }
      ],
      "receptor": {
        "idCliente": 1
      }
    },
    "frecuencia": {
      "unidad": "mes",
      "intervalo": 1
    },
    "anclaje": {},
    "horaEmision": "06:00",
    "zonaHoraria": "America/Montevideo",
    "fechaInicio": "2026-12-01",
    "fin": {
      "tipo": "nunca"
    },
    "periodo": {
      "modo": "adelantado"
    },
    "politicaAtrasos": "emitir_todos",
    "envioEmail": {
      "activo": false
    },
    "ejecucion": {
      "idEjecucion": 2,
      "idPlan": 1,
      "version": 2,
      "claveEjecucion": "1:2027-01-01",
      "periodoDesde": "2027-01-01",
      "periodoHasta": "2027-01-31",
      "periodos": 1,
      "programadaPara": "2027-01-01T09:00:00.000Z",
      "ejecutadaEn": "2026-11-28T18:17:17.338Z",
      "resultado": "emitido",
      "origen": "manual",
      "idCfeEmitido": 7,
      "tipoCfe": 111,
      "serie": "A",
      "numero": 3,
      "estadoDgi": "firmado",
      "codigo": null,
      "motivo": null,
      "intento": 1,
      "proximoIntento": null,
      "acumuladaEn": null
    }
  },
  "postFacturacionrecurrenteOmitirProximaById": {
    "id": 1,
    "idEmpresa": 1,
    "estado": "activo",
    "version": 2,
    "accionesPermitidas": [
      "pausar",
      "cancelar"
    ],
    "proximaEjecucion": "2027-01-01T09:00:00.000Z",
    "proximoPeriodo": {
      "desde": "2027-01-01",
      "hasta": "2027-01-31"
    },
    "ciclosRestantes": null,
    "pausadoHasta": null,
    "motivoCancelacion": null,
    "ultimaEjecucion": {
      "idEjecucion": 1,
      "idPlan": 1,
      "version": 2,
      "claveEjecucion": "1:2026-12-01",
      "periodoDesde": "2026-12-01",
      "periodoHasta": "2026-12-31",
      "periodos": 1,
      "programadaPara": "2026-12-01T09:00:00.000Z",
      "ejecutadaEn": "2026-11-28T18:17:17.333Z",
      "resultado": "omitido",
      "origen": "manual",
      "idCfeEmitido": null,
      "tipoCfe": null,
      "serie": null,
      "numero": null,
      "estadoDgi": null,
      "codigo": null,
      "motivo": "Omitida a pedido (omitirProxima).",
      "intento": 0,
      "proximoIntento": null,
      "acumuladaEn": null
    },
    "createdAt": "2026-11-28T18:17:17.292Z",
    "updatedAt": "2026-11-28T18:17:17.333Z",
    "nombre": "Mantenimiento mensual (contrato 2027)",
    "codComercio": "CENTRAL",
    "codTerminal": "CAJA1",
    "plantilla": {
      "idDoc": {
        "tipoCfe": 111,
        "formaPago": 2
      },
      "detalles": [
        {
          "cantidad": "1",
          "nombreItem": "Servicio de mantenimiento mensual",
          "precioUnitario": "12500.00",
          "indicadorFacturacion": 3
        }
      ],
      "receptor": {
        "idCliente": 1
      }
    },
    "frecuencia": {
      "unidad": "mes",
      "intervalo": 1
    },
    "anclaje": {},
    "horaEmision": "06:00",
    "zonaHoraria": "America/Montevideo",
    "fechaInicio": "2026-12-01",
    "fin": {
      "tipo": "nunca"
    },
    "periodo": {
      "modo": "adelantado"
    },
    "politicaAtrasos": "emitir_todos",
    "envioEmail": {
      "activo": false
    },
    "ejecucion": null
  },
  "postFacturacionrecurrentePausarById": {
    "id": 1,
    "idEmpresa": 1,
    "estado": "pausado",
    "version": 2,
    "accionesPermitidas": [
      "reanudar",
      "cancelar"
    ],
    "proximaEjecucion": "2027-02-01T09:00:00.000Z",
    "proximoPeriodo": {
      "desde": "2027-02-01",
      "hasta": "2027-02-28"
    },
    "ciclosRestantes": null,
    "pausadoHasta": "2027-02-01T02:59:00.000Z",
    "motivoCancelacion": null,
    "ultimaEjecucion": null,
    "createdAt": "2026-11-28T18:17:17.292Z",
    "updatedAt": "2026-11-28T18:17:17.321Z",
    "nombre": "Mantenimiento mensual (contrato 2027)",
    "codComercio": "CENTRAL",
    "codTerminal": "CAJA1",
    "plantilla": {
      "idDoc": {
        "tipoCfe": 111,
        "formaPago": 2
      },
      "detalles": [
        {
          "cantidad": "1",
          "nombreItem": "Servicio de mantenimiento mensual",
          "precioUnitario": "12500.00",
          "indicadorFacturacion": 3
        }
      ],
      "receptor": {
        "idCliente": 1
      }
    },
    "frecuencia": {
      "unidad": "mes",
      "intervalo": 1
    },
    "anclaje": {},
    "horaEmision": "06:00",
    "zonaHoraria": "America/Montevideo",
    "fechaInicio": "2026-12-01",
    "fin": {
      "tipo": "nunca"
    },
    "periodo": {
      "modo": "adelantado"
    },
    "politicaAtrasos": "emitir_todos",
    "envioEmail": {
      "activo": false
    },
    "ejecucion": null
  },
  "postFacturacionrecurrenteReanudarById": {
    "id": 1,
    "idEmpresa": 1,
    "estado": "activo",
    "version": 2,
    "accionesPermitidas": [
      "pausar",
      "cancelar"
    ],
    "proximaEjecucion": "2026-12-01T09:00:00.000Z",
    "proximoPeriodo": {
      "desde": "2026-12-01",
      "hasta": "2026-12-31"
    },
    "ciclosRestantes": null,
    "pausadoHasta": null,
    "motivoCancelacion": null,
    "ultimaEjecucion": null,
    "createdAt": "2026-11-28T18:17:17.292Z",
    "updatedAt": "2026-11-28T18:17:17.326Z",
    "nombre": "Mantenimiento mensual (contrato 2027)",
    "codComercio": "CENTRAL",
    "codTerminal": "CAJA1",
    "plantilla": {
      "idDoc": {
        "tipoCfe": 111,
        "formaPago": 2
      },
      "detalles": [
        {
          "cantidad": "1",
          "nombreItem": "Servicio de mantenimiento mensual",
          "precioUnitario": "12500.00",
          "indicadorFacturacion": 3
        }
      ],
      "receptor": {
        "idCliente": 1
      }
    },
    "frecuencia": {
      "unidad": "mes",
      "intervalo": 1
    },
    "anclaje": {},
    "horaEmision": "06:00",
    "zonaHoraria": "America/Montevideo",
    "fechaInicio": "2026-12-01",
    "fin": {
      "tipo": "nunca"
    },
    "periodo": {
      "modo": "adelantado"
    },
    "politicaAtrasos": "emitir_todos",
    "envioEmail": {
      "activo": false
    },
    "ejecucion": null
  },
  "postMetrics": {
    "id": 1,
    "idEmpresa": 1,
    "codigo": "api_calls",
    "nombre": "Llamadas a la API",
    "unidad": "llamadas",
    "agregacion": "count",
    "propiedad": null,
    "clavesAgrupacion": [
      "region"
    ],
    "creadoEn": "2026-11-28T18:17:17.469Z",
    "actualizadoEn": "2026-11-28T18:17:17.469Z"
  },
  "postOrdenventaByIdCancelar": {
    "id": 2,
    "idEmpresa": 1,
    "estado": "cancelada",
    "cliente": {
      "idCliente": 1
    },
    "detalles": [
      {
        "nombreItem": "Yerba mate 1 kg",
        "cantidad": "12",
        "unidadMedida": "UN",
        "precioUnitario": "189.9",
        "numeroLineaDetalle": 1,
        "montoItem": "2278.80"
      }
    ],
    "tipoMoneda": "UYU",
    "total": "2278.80",
    "observaciones": null,
    "idCfeEmitido": null,
    "createdAt": "2026-11-28T18:17:17.263Z",
    "updatedAt": "2026-11-28T18:17:17.273Z"
  },
  "postOrdenventaByIdFinalizar": {
    "id": 1,
    "idEmpresa": 1,
    "estado": "finalizada",
    "cliente": {
      "idCliente": 1
    },
    "detalles": [
      {
        "nombreItem": "Yerba mate 1 kg",
        "cantidad": "12",
        "unidadMedida": "UN",
        "precioUnitario": "189.9",
        "numeroLineaDetalle": 1,
        "montoItem": "2278.80"
      }
    ],
    "tipoMoneda": "UYU",
    "total": "2278.80",
    "observaciones": "Entregar en el depósito de Pando",
    "idCfeEmitido": 6,
    "createdAt": "2026-11-28T18:17:17.219Z",
    "updatedAt": "2026-11-28T18:17:17.255Z"
  },
  "postOrdenventaCrear": {
    "id": 1,
    "idEmpresa": 1,
    "estado": "confirmada",
    "cliente": {
      "idCliente": 1
    },
    "detalles": [
      {
        "nombreItem": "Yerba mate 1 kg",
        "cantidad": "12",
        "unidadMedida": "UN",
        "precioUnitario": "189.9",
        "numeroLineaDetalle": 1,
        "montoItem": "2278.80"
      }
    ],
    "tipoMoneda": "UYU",
    "total": "2278.80",
    "observaciones": null,
    "idCfeEmitido": null,
    "createdAt": "2026-11-28T18:17:17.219Z",
    "updatedAt": "2026-11-28T18:17:17.219Z"
  },
  "postOrdenventaEditar": {
    "id": 1,
    "idEmpresa": 1,
    "estado": "confirmada",
    "cliente": {
      "idCliente": 1
    },
    "detalles": [
      {
        "nombreItem": "Yerba mate 1 kg",
        "cantidad": "12",
        "unidadMedida": "UN",
        "precioUnitario": "189.9",
        "numeroLineaDetalle": 1,
        "montoItem": "2278.80"
      }
    ],
    "tipoMoneda": "UYU",
    "total": "2278.80",
    "observaciones": "Entregar en el depósito de Pando",
    "idCfeEmitido": null,
    "createdAt": "2026-11-28T18:17:17.219Z",
    "updatedAt": "2026-11-28T18:17:17.236Z"
  },
  "postPriceBooks": {
    "id": 1,
    "idEmpresa": 1,
    "codigo": "API-2026",
    "version": 1,
    "nombre": "Tarifa API 2026",
    "moneda": "UYU",
    "tipoCambio": {
      "modo": "emision"
    },
    "vigenteDesde": "2026-11-01",
    "vigenteHasta": null,
    "createdAt": "2026-11-28T18:17:17.484Z",
    "precios": [
      {
        "metrica": "api_calls",
        "modelo": "escalonado",
        "tramos": [
          {
            "desde": "0",
            "hasta": "10000",
            "precioUnitario": "0.50"
          },
          {
            "desde": "10000",
            "hasta": null,
            "precioUnitario": "0.35"
          }
        ],
        "indicadorFacturacion": 3,
        "nombreItem": "Llamadas a la API"
      }
    ]
  },
  "postPriceBooksByCodigoVersionesByVersionCerrar": {
    "id": 1,
    "idEmpresa": 1,
    "codigo": "API-2026",
    "version": 1,
    "nombre": "Tarifa API 2026",
    "moneda": "UYU",
    "tipoCambio": {
      "modo": "emision"
    },
    "vigenteDesde": "2026-11-01",
    "vigenteHasta": "2027-10-31",
    "createdAt": "2026-11-28T18:17:17.484Z",
    "precios": [
      {
        "metrica": "api_calls",
        "modelo": "escalonado",
        "tramos": [
          {
            "desde": "0",
            "hasta": "10000",
            "precioUnitario": "0.50"
          },
          {
            "desde": "10000",
            "hasta": null,
            "precioUnitario": "0.35"
          }
        ],
        "indicadorFacturacion": 3,
        "nombreItem": "Llamadas a la API"
      }
    ]
  },
  "postProductoCrear": {
    "id": 1,
    "idEmpresa": 1,
    "codigo": "YER-1KG",
    "nombre": "Yerba mate 1 kg",
    "descripcion": null,
    "unidadMedida": "UN",
    "indicadorFacturacion": 3,
    "requiereLote": false,
    "requiereSerie": false,
    "habilitado": true
  },
  "postProductoEditar": {
    "id": 1,
    "idEmpresa": 1,
    "codigo": "YER-1KG",
    "nombre": "Yerba mate 1 kg",
    "descripcion": "Yerba mate con palo, paquete de 1 kg",
    "unidadMedida": "UN",
    "indicadorFacturacion": 3,
    "requiereLote": false,
    "requiereSerie": false,
    "habilitado": true
  },
  "postProductoVarianteByIdLotes": {
    "id": 1,
    "idVariante": 1,
    "codigo": "L2026-11-A",
    "fechaVencimiento": "2028-11-30"
  },
  "postProductoVarianteByIdSeries": {
    "id": 1,
    "idVariante": 1,
    "numeroSerie": "SN-000154",
    "idLote": null
  },
  "postProductoVarianteCrear": {
    "id": 1,
    "idEmpresa": 1,
    "idProducto": 1,
    "codigo": "YER-1KG-SUAVE",
    "nombre": "Yerba mate suave 1 kg",
    "precioUnitario": "189.9",
    "unidadMedida": "UN",
    "unidadMedidaPropia": "UN",
    "habilitado": true
  },
  "postProductoVarianteEditar": {
    "id": 1,
    "idEmpresa": 1,
    "idProducto": 1,
    "codigo": "YER-1KG-SUAVE",
    "nombre": "Yerba mate suave 1 kg",
    "precioUnitario": "194.5",
    "unidadMedida": "UN",
    "unidadMedidaPropia": "UN",
    "habilitado": true
  },
  "postPuntoemisionCrear": {
    "id": 1,
    "idSucursal": 1,
    "idEmpresa": 1,
    "codComercio": "CENTRAL",
    "codTerminal": "CAJA1",
    "descripcion": "Caja 1",
    "habilitada": true
  },
  "postPuntoemisionEditar": {
    "id": 1,
    "idSucursal": 1,
    "idEmpresa": 1,
    "codComercio": "CENTRAL",
    "codTerminal": "CAJA1",
    "descripcion": "Caja 1 (planta baja)",
    "habilitada": true
  },
  "postReportediarioRegenerar": {
    "id": 1,
    "idEmpresa": 1,
    "fechaResumen": "2026-11-26",
    "secEnvio": 1,
    "estado": "aceptado",
    "origen": "manual",
    "cantComprobantes": 0,
    "resumen": [],
    "tmstFirmaEnv": "2026-11-28T15:17:15-03:00",
    "nombreArchivo": "Rep_219999830019_20261126_01.xml",
    "estadoDgi": "AR",
    "motivos": [],
    "idReceptorDgi": "306900000",
    "intentos": 1,
    "ultimoError": null,
    "creadoEn": "2026-11-28T18:17:15.869Z",
    "enviadoEn": "2026-11-28T18:17:15.895Z"
  },
  "postSandboxDgiCae": {
    "idEmpresa": 1,
    "xml": "<?xml version=\"1.0\" encoding=\"UTF-8\"?><ns0:CAE xmlns:ns0=\"ht…",
    "numeroCae": "90260000014",
    "tipoCfe": 101,
    "serie": "A",
    "desde": 1,
    "hasta": 1000,
    "fechaVencimiento": "2027-11-28"
  },
  "postSandboxDgiCertificado": {
    "idEmpresa": 1,
    "rut": "219999830019",
    "clave": "53CME4XY-Yex",
    "archivo": "MIINcQIBAzCCDTcGCSqGSIb3DQEHAaCCDSgEgg0kMIINIDCCB9cGCSqGSIb3…",
    "sujeto": "CN=Almacén La Estrella S.A., serialNumber=RUC219999830019, O=Almacén La Estrella S.A., C=UY",
    "emisor": "CN=Simulador DGI - CA de prueba, OU=Testing, O=CFE Test PKI, C=UY",
    "vigenciaDesde": "2026-11-28T18:16:13.000Z",
    "vigenciaHasta": "2028-11-28T18:16:13.000Z"
  },
  "postSandboxFacturacionrecurrenteReloj": {
    "ahora": "2026-12-01T09:05:00.000Z",
    "reanudados": 0,
    "planes": 0,
    "ejecuciones": 0,
    "contratos": {
      "reencolados": 0,
      "periodosCerrados": 0,
      "emitidos": 0,
      "alertas": []
    }
  },
  "postSandboxReloj": {
    "ahora": "2026-12-01T09:05:00.000Z",
    "reanudados": 0,
    "planes": 0,
    "ejecuciones": 0,
    "contratos": {
      "reencolados": 0,
      "periodosCerrados": 0,
      "emitidos": 0,
      "alertas": []
    }
  },
  "postSucursalCrear": {
    "id": 1,
    "idEmpresa": 1,
    "codComercio": "CENTRAL",
    "nombre": "Casa Central",
    "direccion": "Av. 18 de Julio 1234",
    "ciudad": "Montevideo",
    "departamento": "Montevideo",
    "telefono": null,
    "email": null,
    "CodigoCasaDgi": 1,
    "habilitada": true,
    "tieneLogo": false,
    "codigosDgi": []
  },
  "postSucursalEditar": {
    "id": 1,
    "idEmpresa": 1,
    "codComercio": "CENTRAL",
    "nombre": "Casa Central",
    "direccion": "Av. 18 de Julio 1234",
    "ciudad": "Montevideo",
    "departamento": "Montevideo",
    "telefono": "29001235",
    "email": null,
    "CodigoCasaDgi": 1,
    "habilitada": true,
    "tieneLogo": false,
    "codigosDgi": []
  },
  "postUsageEvents": {
    "resultados": [
      {
        "indice": 0,
        "idTransaccion": "evt-2026-11-27-0001",
        "estado": "aceptado"
      }
    ],
    "aceptados": 1,
    "duplicados": 0,
    "conflictos": 0,
    "rechazados": 0
  },
  "postUsuarioCrear": {
    "id": 2,
    "usuario": "caja1@laestrella.com.uy",
    "nombre": "Caja 1",
    "habilitado": true,
    "bloqueado": false,
    "operador": false,
    "empresas": [
      {
        "idEmpresa": 1,
        "rol": "emisor"
      }
    ]
  },
  "postUsuarioDesbloquear": {
    "id": 2,
    "usuario": "caja1@laestrella.com.uy",
    "nombre": "Caja 1 (turno mañana)",
    "habilitado": true,
    "bloqueado": false,
    "operador": false,
    "empresas": [
      {
        "idEmpresa": 1,
        "rol": "emisor"
      }
    ]
  },
  "postUsuarioEditar": {
    "id": 2,
    "usuario": "caja1@laestrella.com.uy",
    "nombre": "Caja 1 (turno mañana)",
    "habilitado": true,
    "bloqueado": false,
    "operador": false,
    "empresas": [
      {
        "idEmpresa": 1,
        "rol": "emisor"
      }
    ]
  },
  "postWebhooks": {
    "id": 1,
    "idEmpresa": 1,
    "name": "ERP: comprobantes emitidos",
    "url": "https://erp.laestrella.com.uy/webhooks/cfe",
    "events": [
      "Cfe.Emitido",
      "Cfe.RechazadoDgi"
    ],
    "enabled": true,
    "hasSecret": true,
    "headers": {},
    "maxAttempts": 8,
    "createdAt": "2026-11-28T18:17:17.904Z",
    "updatedAt": "2026-11-28T18:17:17.904Z"
  },
  "postWebhooksByIdProbar": {
    "id": 1,
    "eventId": "evt_31",
    "eventType": "Webhook.Prueba",
    "status": "pendiente",
    "attempts": 0,
    "nextAttemptAt": "2026-11-28T18:17:17.915Z",
    "idempotencyKey": "b9ec2e52-1150-40de-9eb6-6b22969123ed",
    "lastStatusCode": null,
    "lastError": null,
    "deliveredAt": null,
    "createdAt": "2026-11-28T18:17:17.914Z",
    "intentos": []
  },
  "postWebhooksByIdReenviar": {
    "reenviadas": 0
  },
  "postWebhooksByIdRotarSecreto": {
    "id": 1,
    "secret": "whsec_TkKTjKo4HX9HovfbdBAeU3TFfIHDZ2d37K99G+lWOmQ="
  },
  "putContractsByIdTerms": {
    "idContrato": 1,
    "idVersionListaPrecios": null,
    "codigoListaPrecios": "API-2026",
    "diaAncla": 1,
    "tipoCfe": 111,
    "codComercio": "CENTRAL",
    "codTerminal": "CAJA1",
    "formaPago": 2,
    "reglas": [
      {
        "id": "fin-prueba-gratis",
        "accion": "advertir",
        "umbral": "1",
        "metrica": "api_calls",
        "objetivo": "unidades",
        "levantamiento": "manual"
      }
    ],
    "periodoAbierto": "2026-11-01",
    "periodoAbiertoHasta": "2026-11-30",
    "alertaCierre": null
  },
  "putEmpresaCorreoEntrante": {
    "idEmpresa": 1,
    "configurado": true,
    "host": "imap.laestrella.com.uy",
    "puerto": 993,
    "tls": true,
    "usuario": "cfe-recibidos@laestrella.com.uy",
    "claveConfigurada": true,
    "carpeta": "INBOX",
    "direccion": "cfe-recibidos@laestrella.com.uy",
    "activo": false,
    "ultimoSondeoOk": null,
    "ultimoError": null,
    "ultimoErrorEn": null,
    "ultimoUid": 0
  },
  "putEmpresaCorreoSaliente": {
    "idEmpresa": 1,
    "configurado": true,
    "smtpHost": "smtp.laestrella.com.uy",
    "smtpPuerto": 587,
    "smtpSeguro": false,
    "smtpUsuario": "facturacion@laestrella.com.uy",
    "smtpClaveConfigurada": true,
    "remitente": "Almacén La Estrella <facturacion@laestrella.com.uy>",
    "fechaActualizacion": "2026-11-28T18:17:13.989Z"
  },
  "putEmpresaEnvioDgi": {
    "idEmpresa": 1,
    "envioIndividual": "todos"
  },
  "putExportacionContableCuentas": {
    "idEmpresa": 1,
    "cuentas": [
      {
        "clave": "deudoresPorVentas",
        "codigo": "1.1.3.01",
        "nombre": "Deudores por ventas",
        "codigoPredeterminado": "1.1.3.01"
      },
      {
        "clave": "ventasTasaBasica",
        "codigo": "4.1.1.01",
        "nombre": "Ventas gravadas tasa básica",
        "codigoPredeterminado": "4.1.1.01"
      }
    ]
  },
  "putUsageSettings": {
    "idEmpresa": 1,
    "graciaHoras": 48,
    "usoTardio": "marcar"
  }
};
