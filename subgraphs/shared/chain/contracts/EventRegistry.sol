// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Admin} from "./Admin.sol";
import {IdentityRegistry} from "./IdentityRegistry.sol";
import {IdentityStaking} from "./IdentityStaking.sol";

/// @notice Revenue and activity events of registered, bonded machines, submitted by the machine, its operator, or a
/// submitter either of them delegated (the authorization set the rating service also accepts for monetization).
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

    /// @notice The fields a submitter provides for one event (batchSubmitEvents).
    struct EventInput {
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
    }

    IdentityRegistry public immutable identityRegistry;
    IdentityStaking public immutable identityStaking;
    mapping(uint256 => MachineEvent[]) private _events;
    /// @notice machineId => account => may submit events for the machine (set by the machine or its operator).
    mapping(uint256 => mapping(address => bool)) public isDelegatedSubmitter;

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

    event SubmitterSet(uint256 indexed machineId, address indexed account, bool allowed);

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
        return _submit(
            EventInput(
                machineId, eventType, value, currency, timestamp, dataHash, trustLevel, sourceChainId, sourceTxHash, metadata
            )
        );
    }

    /// @notice Several events in one transaction, each checked as `submitEvent` checks it; any failure reverts all.
    function batchSubmitEvents(EventInput[] calldata inputs) external returns (uint256 firstIndex) {
        for (uint256 i = 0; i < inputs.length; i++) {
            uint256 index = _submit(inputs[i]);
            if (i == 0) firstIndex = index;
        }
    }

    /// @notice The machine or its operator lets `account` submit events for the machine (or stops it).
    function setSubmitter(uint256 machineId, address account, bool allowed) external {
        if (
            msg.sender != identityRegistry.machineAddressOf(machineId)
                && msg.sender != identityRegistry.operatorOf(machineId) && msg.sender != admin
        ) revert NotMachineOrOperator();
        if (account == address(0)) revert ZeroAddress();
        isDelegatedSubmitter[machineId][account] = allowed;
        emit SubmitterSet(machineId, account, allowed);
    }

    /// @notice The authorization set of event submission: the machine's address, its operator, or a delegate.
    function isSubmitter(uint256 machineId, address account) public view returns (bool) {
        if (account == address(0)) return false;
        return account == identityRegistry.machineAddressOf(machineId) || account == identityRegistry.operatorOf(machineId)
            || isDelegatedSubmitter[machineId][account];
    }

    function _submit(EventInput memory input) private returns (uint256 index) {
        uint256 machineId = input.machineId;
        if (!identityRegistry.machineExists(machineId)) revert MachineNotRegistered(machineId);
        if (!identityStaking.isStaked(machineId)) revert MachineNotBonded(machineId);
        if (!isSubmitter(machineId, msg.sender) && msg.sender != admin) revert NotMachineOrOperator();
        if (input.timestamp > block.timestamp) revert FutureTimestamp();
        if (input.eventType > EVENT_ACTIVITY) revert InvalidEventType();
        if (!_validCurrency(input.eventType, bytes(input.currency))) revert InvalidCurrencyShape();
        if (input.trustLevel > MAX_TRUST_LEVEL) revert InvalidTrustLevel();

        index = _events[machineId].length;
        _events[machineId].push(
            MachineEvent({
                machineId: machineId,
                eventType: input.eventType,
                value: input.value,
                currency: input.currency,
                timestamp: input.timestamp,
                dataHash: input.dataHash,
                trustLevel: input.trustLevel,
                sourceChainId: input.sourceChainId,
                sourceTxHash: input.sourceTxHash,
                metadata: input.metadata,
                submitter: msg.sender,
                recordedAt: block.timestamp
            })
        );
        emit EventSubmitted(machineId, index, input.eventType, input.value, input.currency, msg.sender);
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
