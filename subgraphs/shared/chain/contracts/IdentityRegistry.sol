// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Admin} from "./Admin.sol";
import {IdentityStaking} from "./IdentityStaking.sol";

/// @notice 1.0-style identity registry: machines are known by address (`did:<method>:0x<address>`), get sequential
/// IDs, and are bonded through IdentityStaking on registration.
contract IdentityRegistry is Admin {
    enum Status {
        None,
        Pending,
        Verified,
        Rejected,
        Deactivated
    }

    IdentityStaking public immutable staking;
    uint256 public minBond;
    uint256 public nextMachineId = 1;

    mapping(address => uint256) public machineIdOf;
    mapping(uint256 => address) public machineAddressOf;
    mapping(uint256 => address) public operatorOf;
    mapping(uint256 => Status) private _status;

    event MachineRegistered(uint256 indexed machineId, address indexed machineAddress, address indexed operator);
    event MachineStatusChanged(uint256 indexed machineId, Status status);
    event MinBondSet(uint256 minBond);
    event MachineAddressCleared(uint256 indexed machineId);

    error AlreadyRegistered(address machineAddress);
    error MachineIdTaken(uint256 machineId);
    error InvalidMachineId();
    error InsufficientBond(uint256 required);
    error MachineNotFound(uint256 machineId);

    constructor(IdentityStaking identityStaking, uint256 initialMinBond) {
        staking = identityStaking;
        minBond = initialMinBond;
    }

    /// @notice Registers `machineAddress` under the next free ID, bonding `msg.value` (at least `minBond`).
    function registerFor(address machineAddress, address operator) external payable returns (uint256 machineId) {
        machineId = nextMachineId;
        _register(machineId, machineAddress, operator);
    }

    /// @notice Admin seeding variant: registers at a given ID so IDs match the MachineRegistry.
    function registerAt(uint256 machineId, address machineAddress, address operator) external payable onlyAdmin {
        if (machineId == 0) revert InvalidMachineId();
        if (_status[machineId] != Status.None) revert MachineIdTaken(machineId);
        _register(machineId, machineAddress, operator);
    }

    /// @notice Admin import of a legacy 1.0 machine whose bond was never posted: registered, Pending, not staked.
    function registerUnbondedAt(uint256 machineId, address machineAddress, address operator) external onlyAdmin {
        if (machineId == 0) revert InvalidMachineId();
        if (_status[machineId] != Status.None) revert MachineIdTaken(machineId);
        _record(machineId, machineAddress, operator, false);
    }

    function setMachineStatus(uint256 machineId, Status status) external onlyAdmin {
        if (_status[machineId] == Status.None) revert MachineNotFound(machineId);
        _status[machineId] = status;
        emit MachineStatusChanged(machineId, status);
    }

    /// @notice Unlinks a machine's wallet (a lost or retired key): the machine stays registered with no wallet, and
    /// its address is free again. Readers answer "Machine wallet not found" for it.
    function clearMachineAddress(uint256 machineId) external onlyAdmin {
        if (_status[machineId] == Status.None) revert MachineNotFound(machineId);
        delete machineIdOf[machineAddressOf[machineId]];
        delete machineAddressOf[machineId];
        emit MachineAddressCleared(machineId);
    }

    function setMinBond(uint256 newMinBond) external onlyAdmin {
        minBond = newMinBond;
        emit MinBondSet(newMinBond);
    }

    function machineStatus(uint256 machineId) external view returns (Status) {
        return _status[machineId];
    }

    function machineExists(uint256 machineId) external view returns (bool) {
        return _status[machineId] != Status.None;
    }

    function _register(uint256 machineId, address machineAddress, address operator) private {
        _record(machineId, machineAddress, operator, true);
    }

    /// @dev `bonded`: msg.value (at least minBond) is staked for the machine; otherwise nothing is staked.
    function _record(uint256 machineId, address machineAddress, address operator, bool bonded) private {
        if (machineAddress == address(0) || operator == address(0)) revert ZeroAddress();
        if (machineIdOf[machineAddress] != 0) revert AlreadyRegistered(machineAddress);
        if (bonded && (msg.value < minBond || msg.value == 0)) revert InsufficientBond(minBond);
        machineIdOf[machineAddress] = machineId;
        machineAddressOf[machineId] = machineAddress;
        operatorOf[machineId] = operator;
        _status[machineId] = Status.Pending;
        if (machineId >= nextMachineId) nextMachineId = machineId + 1;
        if (bonded) staking.stakeFor{value: msg.value}(machineId);
        emit MachineRegistered(machineId, machineAddress, operator);
        emit MachineStatusChanged(machineId, Status.Pending);
    }
}
