// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Admin} from "./Admin.sol";

/// @notice DID attribute registry with the peaq DID precompile's ABI, keyed by DID account.
/// Differences from the precompile: a missing attribute reads as an empty struct (`created == 0`) instead of
/// reverting, and the admin may write any DID (demo seeding); otherwise only the DID account writes its own DID.
contract DidRegistry is Admin {
    struct Attribute {
        bytes name;
        bytes value;
        uint32 validity;
        uint256 created;
    }

    mapping(address => mapping(bytes32 => Attribute)) private _attributes;

    event AddAttribute(address sender, address did_account, bytes name, bytes value, uint32 validity);
    event UpdateAttribute(address sender, address did_account, bytes name, bytes value, uint32 validity);
    // The misspelling is the precompile's own event name.
    event RemoveAttribte(address did_account, bytes name);

    error NotDidAccount();
    error AttributeExists();
    error AttributeNotFound();

    modifier onlyDidAccountOrAdmin(address didAccount) {
        if (msg.sender != didAccount && msg.sender != admin) revert NotDidAccount();
        _;
    }

    function readAttribute(address did_account, bytes calldata name) external view returns (Attribute memory) {
        return _attributes[did_account][keccak256(name)];
    }

    function addAttribute(address did_account, bytes calldata name, bytes calldata value, uint32 validity_for)
        external
        onlyDidAccountOrAdmin(did_account)
        returns (bool)
    {
        Attribute storage attribute = _attributes[did_account][keccak256(name)];
        if (attribute.created != 0) revert AttributeExists();
        _attributes[did_account][keccak256(name)] = Attribute(name, value, validity_for, block.timestamp);
        emit AddAttribute(msg.sender, did_account, name, value, validity_for);
        return true;
    }

    function updateAttribute(address did_account, bytes calldata name, bytes calldata value, uint32 validity_for)
        external
        onlyDidAccountOrAdmin(did_account)
        returns (bool)
    {
        Attribute storage attribute = _attributes[did_account][keccak256(name)];
        if (attribute.created == 0) revert AttributeNotFound();
        attribute.value = value;
        attribute.validity = validity_for;
        emit UpdateAttribute(msg.sender, did_account, name, value, validity_for);
        return true;
    }

    function removeAttribute(address did_account, bytes calldata name)
        external
        onlyDidAccountOrAdmin(did_account)
        returns (bool)
    {
        bytes32 key = keccak256(name);
        if (_attributes[did_account][key].created == 0) revert AttributeNotFound();
        delete _attributes[did_account][key];
        emit RemoveAttribte(did_account, name);
        return true;
    }
}
