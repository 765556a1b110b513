// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Admin} from "./Admin.sol";

/// @notice EAS-like registry for two topics: chip attestations (subject: machine ID) and KYB attestations (subject:
/// operator address). The latest attestation per subject wins. Status codes: 0 unverified (none), 1 verified,
/// 2 expired, 3 revoked; revocation wins over expiry.
contract AttestationRegistry is Admin {
    uint8 public constant TOPIC_CHIP = 0;
    uint8 public constant TOPIC_KYB = 1;

    uint8 public constant STATUS_UNVERIFIED = 0;
    uint8 public constant STATUS_VERIFIED = 1;
    uint8 public constant STATUS_EXPIRED = 2;
    uint8 public constant STATUS_REVOKED = 3;

    struct Attestation {
        bytes32 uid;
        uint8 topic;
        uint256 machineId;
        address operator;
        bytes32 ref;
        bytes32 evidenceHash;
        address attester;
        uint64 time;
        uint64 expirationTime;
        uint64 revocationTime;
    }

    mapping(address => bool) public isAttester;
    mapping(bytes32 => Attestation) private _attestations;
    mapping(uint256 => bytes32) public latestChipAttestation;
    mapping(address => bytes32) public latestKybAttestation;
    uint256 private _attestationCount;

    event AttesterSet(address indexed attester, bool allowed);
    event ChipAttested(bytes32 indexed uid, uint256 indexed machineId, bytes32 chipRef, bytes32 evidenceHash, uint64 expiresAt);
    event KybAttested(bytes32 indexed uid, address indexed operator, bytes32 kybRef, uint64 expiresAt);
    event Revoked(bytes32 indexed uid, address indexed revoker);

    error NotAttester();
    error UnknownAttestation(bytes32 uid);
    error AlreadyRevoked(bytes32 uid);

    modifier onlyAttester() {
        if (!isAttester[msg.sender]) revert NotAttester();
        _;
    }

    function setAttester(address attester, bool allowed) external onlyAdmin {
        isAttester[attester] = allowed;
        emit AttesterSet(attester, allowed);
    }

    /// @notice `expiresAt` 0 = never; a time in the past records an already expired attestation (backfills, demo).
    function attestChip(uint256 machineId, bytes32 chipRef, bytes32 evidenceHash, uint64 expiresAt)
        external
        onlyAttester
        returns (bytes32 uid)
    {
        uid = _record(TOPIC_CHIP, machineId, address(0), chipRef, evidenceHash, expiresAt);
        latestChipAttestation[machineId] = uid;
        emit ChipAttested(uid, machineId, chipRef, evidenceHash, expiresAt);
    }

    function attestKyb(address operator, bytes32 kybRef, uint64 expiresAt) external onlyAttester returns (bytes32 uid) {
        if (operator == address(0)) revert ZeroAddress();
        uid = _record(TOPIC_KYB, 0, operator, kybRef, bytes32(0), expiresAt);
        latestKybAttestation[operator] = uid;
        emit KybAttested(uid, operator, kybRef, expiresAt);
    }

    function revoke(bytes32 uid) external onlyAttester {
        Attestation storage attestation = _attestations[uid];
        if (attestation.uid == bytes32(0)) revert UnknownAttestation(uid);
        if (attestation.revocationTime != 0) revert AlreadyRevoked(uid);
        attestation.revocationTime = uint64(block.timestamp);
        emit Revoked(uid, msg.sender);
    }

    function getAttestation(bytes32 uid) external view returns (Attestation memory) {
        return _attestations[uid];
    }

    function chipStatus(uint256 machineId) external view returns (uint8) {
        return statusOf(latestChipAttestation[machineId]);
    }

    function kybStatus(address operator) external view returns (uint8) {
        return statusOf(latestKybAttestation[operator]);
    }

    function statusOf(bytes32 uid) public view returns (uint8) {
        Attestation storage attestation = _attestations[uid];
        if (attestation.uid == bytes32(0)) return STATUS_UNVERIFIED;
        if (attestation.revocationTime != 0) return STATUS_REVOKED;
        if (attestation.expirationTime != 0 && attestation.expirationTime <= block.timestamp) return STATUS_EXPIRED;
        return STATUS_VERIFIED;
    }

    /// @dev UIDs are unique per registry and chain: a counter makes re-attesting identical data a new attestation.
    function _record(uint8 topic, uint256 machineId, address operator, bytes32 ref, bytes32 evidenceHash, uint64 expiresAt)
        private
        returns (bytes32 uid)
    {
        uid = keccak256(abi.encode(block.chainid, address(this), ++_attestationCount, topic, machineId, operator, ref));
        _attestations[uid] = Attestation({
            uid: uid,
            topic: topic,
            machineId: machineId,
            operator: operator,
            ref: ref,
            evidenceHash: evidenceHash,
            attester: msg.sender,
            time: uint64(block.timestamp),
            expirationTime: expiresAt,
            revocationTime: 0
        });
    }
}
