// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Admin} from "./Admin.sol";
import {IdentityRegistry} from "./IdentityRegistry.sol";
import {IdentityStaking} from "./IdentityStaking.sol";

/// @notice Revenue and activity events of registered, bonded machines, submitted by the machine or its operator.
contract EventRegistry is Admin {
    uint8 public constant EVENT_REVENUE = 0;
    uint8 public constant EVENT_ACTIVITY = 1;
    uint8 public constant MAX_TRUST_LEVEL = 2;

    struct MachineEvent {
        uint256 machineId;
        uint8 eventType;
        uint256 value;
        string currency;
        uint256 timestamp;
        bytes32 dataHash;
        uint8 trustLevel;
        uint256 sourceChainId;
        bytes32 sourceTxHash;
        bytes metadata;
        address submitter;
        uint256 recordedAt;
    }

    IdentityRegistry public immutable identityRegistry;
    IdentityStaking public immutable identityStaking;
    mapping(uint256 => MachineEvent[]) private _events;

    event EventSubmitted(
        uint256 indexed machineId, uint256 indexed index, uint8 eventType, uint256 value, string currency, address submitter
    );

    error MachineNotRegistered(uint256 machineId);
    error MachineNotBonded(uint256 machineId);
    error NotMachineOrOperator();
    error FutureTimestamp();
    error InvalidEventType();
    error InvalidCurrencyShape();
    error InvalidTrustLevel();

    constructor(IdentityRegistry registry, IdentityStaking staking) {
        identityRegistry = registry;
        identityStaking = staking;
    }

    function submitEvent(
        uint256 machineId,
        uint8 eventType,
        uint256 value,
        string calldata currency,
        uint256 timestamp,
        bytes32 dataHash,
        uint8 trustLevel,
        uint256 sourceChainId,
        bytes32 sourceTxHash,
        bytes calldata metadata
    ) external returns (uint256 index) {
        if (!identityRegistry.machineExists(machineId)) revert MachineNotRegistered(machineId);
        if (!identityStaking.isStaked(machineId)) revert MachineNotBonded(machineId);
        if (
            msg.sender != identityRegistry.machineAddressOf(machineId)
                && msg.sender != identityRegistry.operatorOf(machineId) && msg.sender != admin
        ) revert NotMachineOrOperator();
        if (timestamp > block.timestamp) revert FutureTimestamp();
        if (eventType > EVENT_ACTIVITY) revert InvalidEventType();
        if (!_validCurrency(eventType, bytes(currency))) revert InvalidCurrencyShape();
        if (trustLevel > MAX_TRUST_LEVEL) revert InvalidTrustLevel();

        index = _events[machineId].length;
        _events[machineId].push(
            MachineEvent({
                machineId: machineId,
                eventType: eventType,
                value: value,
                currency: currency,
                timestamp: timestamp,
                dataHash: dataHash,
                trustLevel: trustLevel,
                sourceChainId: sourceChainId,
                sourceTxHash: sourceTxHash,
                metadata: metadata,
                submitter: msg.sender,
                recordedAt: block.timestamp
            })
        );
        emit EventSubmitted(machineId, index, eventType, value, currency, msg.sender);
    }

    function eventCount(uint256 machineId) external view returns (uint256) {
        return _events[machineId].length;
    }

    /// @notice Events `[offset, offset + limit)` in submission order, clamped to the stored range.
    function getEvents(uint256 machineId, uint256 offset, uint256 limit)
        external
        view
        returns (MachineEvent[] memory page)
    {
        MachineEvent[] storage all = _events[machineId];
        if (offset >= all.length) return page;
        uint256 end = all.length - offset < limit ? all.length : offset + limit;
        page = new MachineEvent[](end - offset);
        for (uint256 i = offset; i < end; i++) {
            page[i - offset] = all[i];
        }
    }

    /// @dev Revenue needs 3-10 uppercase letters or digits (e.g. USD, USDC); activity carries no currency.
    function _validCurrency(uint8 eventType, bytes memory currency) private pure returns (bool) {
        if (eventType == EVENT_ACTIVITY) return currency.length == 0;
        if (currency.length < 3 || currency.length > 10) return false;
        for (uint256 i = 0; i < currency.length; i++) {
            bytes1 c = currency[i];
            bool upper = c >= 0x41 && c <= 0x5A;
            bool digit = c >= 0x30 && c <= 0x39;
            if (!upper && !digit) return false;
        }
        return true;
    }
}
