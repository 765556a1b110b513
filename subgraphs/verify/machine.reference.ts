import { VerifyMachine } from "./machine.type.js";

export function resolveMachineReference(reference: { machineId: string }): VerifyMachine {
  return Object.assign(new VerifyMachine(), { machineId: reference.machineId });
}
