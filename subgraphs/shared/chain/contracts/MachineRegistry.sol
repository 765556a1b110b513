// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Admin} from "./Admin.sol";
import {MachineNFT} from "./MachineNFT.sol";

/// @notice 2.0-style machine registry: machine ID -> identity, operator, optional DID controller, home chain and NFT.
/// The NFT owner holds authority over the controller; `getMachine` returns everything a reader needs in one call.
contract MachineRegistry is Admin {
    uint8 public constant HOME_EVM = 0;
    uint8 public constant HOME_SOLANA = 1;

    struct Machine {
        bool exists;
        bool deactivated;
        uint8 homeKind;
        address machineAddress;
        address operator;
        address controller;
        uint256 homeChainId;
        bytes32 homeGenesisHash;
        uint256 tokenId;
    }

    /// @notice Read model: the stored record plus the NFT owner and the effective controller (controller or owner).
    struct MachineView {
        bool exists;
        bool deactivated;
        uint8 homeKind;
        address machineAddress;
        address operator;
        address owner;
        address controller;
        address effectiveController;
        uint256 homeChainId;
        bytes32 homeGenesisHash;
        uint256 tokenId;
    }

    MachineNFT public immutable nft;
    mapping(uint256 => Machine) private _machines;

    event MachineRegistered(
        uint256 indexed machineId, address indexed machineAddress, address indexed operator, uint256 tokenId, uint8 homeKind
    );
    event ControllerSet(uint256 indexed machineId, address indexed controller);
    event ControllerCleared(uint256 indexed machineId);
    event MachineDeactivated(uint256 indexed machineId);

    error MachineNotFound(uint256 machineId);
    error MachineAlreadyRegistered(uint256 machineId);
    error InvalidHomeChain();
    error NotMachineOwner();
    error AlreadyDeactivated(uint256 machineId);

    constructor(MachineNFT machineNft) {
        nft = machineNft;
    }

    /// @notice Registers a machine and mints its NFT to `owner` (this contract must be the NFT's minter).
    /// An EVM home carries `homeChainId` and a zero genesis hash; a Solana home a genesis hash and chain ID 0.
    function registerMachine(
        uint256 machineId,
        address machineAddress,
        address operator,
        address owner,
        uint8 homeKind,
        uint256 homeChainId,
        bytes32 homeGenesisHash
    ) external onlyAdmin returns (uint256 tokenId) {
        if (_machines[machineId].exists) revert MachineAlreadyRegistered(machineId);
        if (machineAddress == address(0) || operator == address(0)) revert ZeroAddress();
        bool validEvm = homeKind == HOME_EVM && homeChainId != 0 && homeGenesisHash == bytes32(0);
        bool validSolana = homeKind == HOME_SOLANA && homeChainId == 0 && homeGenesisHash != bytes32(0);
        if (!validEvm && !validSolana) revert InvalidHomeChain();
        tokenId = nft.mint(machineId, owner);
        _machines[machineId] = Machine({
            exists: true,
            deactivated: false,
            homeKind: homeKind,
            machineAddress: machineAddress,
            operator: operator,
            controller: address(0),
            homeChainId: homeChainId,
            homeGenesisHash: homeGenesisHash,
            tokenId: tokenId
        });
        emit MachineRegistered(machineId, machineAddress, operator, tokenId, homeKind);
    }

    function setController(uint256 machineId, address controller) external {
        _requireNftOwner(machineId);
        if (controller == address(0)) revert ZeroAddress();
        _machines[machineId].controller = controller;
        emit ControllerSet(machineId, controller);
    }

    function clearController(uint256 machineId) external {
        _requireNftOwner(machineId);
        delete _machines[machineId].controller;
        emit ControllerCleared(machineId);
    }

    function deactivate(uint256 machineId) external onlyAdmin {
        Machine storage machine = _machines[machineId];
        if (!machine.exists) revert MachineNotFound(machineId);
        if (machine.deactivated) revert AlreadyDeactivated(machineId);
        machine.deactivated = true;
        emit MachineDeactivated(machineId);
    }

    /// @notice Unknown IDs return `exists == false` and zero fields instead of reverting.
    function getMachine(uint256 machineId) external view returns (MachineView memory view_) {
        Machine storage machine = _machines[machineId];
        if (!machine.exists) return view_;
        address owner = nft.ownerOf(machine.tokenId);
        view_ = MachineView({
            exists: true,
            deactivated: machine.deactivated,
            homeKind: machine.homeKind,
            machineAddress: machine.machineAddress,
            operator: machine.operator,
            owner: owner,
            controller: machine.controller,
            effectiveController: machine.controller == address(0) ? owner : machine.controller,
            homeChainId: machine.homeChainId,
            homeGenesisHash: machine.homeGenesisHash,
            tokenId: machine.tokenId
        });
    }

    function _requireNftOwner(uint256 machineId) private view {
        Machine storage machine = _machines[machineId];
        if (!machine.exists) revert MachineNotFound(machineId);
        if (nft.ownerOf(machine.tokenId) != msg.sender) revert NotMachineOwner();
    }
}
