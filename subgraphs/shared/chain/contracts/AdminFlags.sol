// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Admin} from "./Admin.sol";

/// @notice Administrative overrides read by the rating service: a trust override value and a negative flag per machine.
contract AdminFlags is Admin {
    struct TrustOverride {
        bool active;
        uint256 value;
    }

    /// @notice Overrides replace the trust contribution, in percent of its maximum (docs/mcr-scoring.md).
    uint256 public constant MAX_TRUST_OVERRIDE = 100;

    mapping(uint256 => TrustOverride) private _trustOverrides;
    /// @notice Block timestamp at which the machine was flagged; 0 = not flagged.
    mapping(uint256 => uint256) public flaggedAt;

    event TrustOverrideSet(uint256 indexed machineId, uint256 value);
    event TrustOverrideCleared(uint256 indexed machineId);
    event MachineFlagged(uint256 indexed machineId, uint256 flaggedAt);
    event FlagCleared(uint256 indexed machineId);

    error InvalidTrustOverride(uint256 value);

    function setTrustOverride(uint256 machineId, uint256 value) external onlyAdmin {
        if (value > MAX_TRUST_OVERRIDE) revert InvalidTrustOverride(value);
        _trustOverrides[machineId] = TrustOverride(true, value);
        emit TrustOverrideSet(machineId, value);
    }

    function clearTrustOverride(uint256 machineId) external onlyAdmin {
        delete _trustOverrides[machineId];
        emit TrustOverrideCleared(machineId);
    }

    function flagMachine(uint256 machineId) external onlyAdmin {
        flaggedAt[machineId] = block.timestamp;
        emit MachineFlagged(machineId, block.timestamp);
    }

    function clearFlag(uint256 machineId) external onlyAdmin {
        delete flaggedAt[machineId];
        emit FlagCleared(machineId);
    }

    function trustOverrideOf(uint256 machineId) external view returns (bool active, uint256 value) {
        TrustOverride storage entry = _trustOverrides[machineId];
        return (entry.active, entry.value);
    }
}
