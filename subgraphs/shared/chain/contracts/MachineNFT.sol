// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Admin} from "./Admin.sol";

/// @notice Minimal ERC-721 for machines. Token IDs are this contract's own counter (from 1), distinct from machine IDs.
contract MachineNFT is Admin {
    string public constant name = "Machine NFT";
    string public constant symbol = "MNFT";

    uint256 public nextTokenId = 1;
    /// @notice Besides the admin, one minter (the MachineRegistry) may mint, so registration is a single transaction.
    address public minter;

    mapping(uint256 => address) private _owners;
    mapping(address => uint256) private _balances;
    mapping(uint256 => address) public getApproved;
    /// @notice machineId => tokenId (0 = not minted).
    mapping(uint256 => uint256) public tokenIdOf;
    /// @notice tokenId => machineId.
    mapping(uint256 => uint256) public machineIdOf;

    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
    event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId);
    event MinterSet(address indexed minter);
    event MachineMinted(uint256 indexed machineId, uint256 indexed tokenId, address indexed to);

    error NotMinter();
    error InvalidMachineId();
    error AlreadyMinted(uint256 machineId);
    error NonexistentToken(uint256 tokenId);
    error NotOwnerOrApproved();
    error WrongFrom();

    function setMinter(address newMinter) external onlyAdmin {
        minter = newMinter;
        emit MinterSet(newMinter);
    }

    function mint(uint256 machineId, address to) external returns (uint256 tokenId) {
        if (msg.sender != admin && msg.sender != minter) revert NotMinter();
        if (machineId == 0) revert InvalidMachineId();
        if (to == address(0)) revert ZeroAddress();
        if (tokenIdOf[machineId] != 0) revert AlreadyMinted(machineId);
        tokenId = nextTokenId++;
        tokenIdOf[machineId] = tokenId;
        machineIdOf[tokenId] = machineId;
        _owners[tokenId] = to;
        _balances[to] += 1;
        emit Transfer(address(0), to, tokenId);
        emit MachineMinted(machineId, tokenId, to);
    }

    function ownerOf(uint256 tokenId) public view returns (address owner) {
        owner = _owners[tokenId];
        if (owner == address(0)) revert NonexistentToken(tokenId);
    }

    function balanceOf(address owner) external view returns (uint256) {
        if (owner == address(0)) revert ZeroAddress();
        return _balances[owner];
    }

    function approve(address approved, uint256 tokenId) external {
        address owner = ownerOf(tokenId);
        if (msg.sender != owner) revert NotOwnerOrApproved();
        getApproved[tokenId] = approved;
        emit Approval(owner, approved, tokenId);
    }

    function transferFrom(address from, address to, uint256 tokenId) external {
        address owner = ownerOf(tokenId);
        if (owner != from) revert WrongFrom();
        if (msg.sender != owner && msg.sender != getApproved[tokenId]) revert NotOwnerOrApproved();
        if (to == address(0)) revert ZeroAddress();
        delete getApproved[tokenId];
        _balances[from] -= 1;
        _balances[to] += 1;
        _owners[tokenId] = to;
        emit Transfer(from, to, tokenId);
    }
}
