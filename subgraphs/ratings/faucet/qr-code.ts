/** The otpauth URI as a QR code (level M) in a data URL, made by `qrcode`; QR_GENERATION_FAILED when it cannot be. */
import QRCode from "qrcode";
import { FaucetErrors } from "./faucet-errors.js";

export const QR_FORMATS = ["png", "svg"] as const;
export type QrFormat = (typeof QR_FORMATS)[number];

export const isQrFormat = (format: string): format is QrFormat => (QR_FORMATS as readonly string[]).includes(format);

export async function qrDataUrl(uri: string, format: QrFormat): Promise<string> {
  try {
    if (format === "svg") {
      const svg = await QRCode.toString(uri, { type: "svg", errorCorrectionLevel: "M" });
      return `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}`;
    }
    return await QRCode.toDataURL(uri, { type: "image/png", errorCorrectionLevel: "M" });
  } catch {
    throw FaucetErrors.qrGenerationFailed();
  }
}
