// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Admin} from "./Admin.sol";

interface IEip3009Token {
    function transferFrom(address from, address to, uint256 value) external returns (bool);
    function transfer(address to, uint256 value) external returns (bool);
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) external;
}

/// @notice Holds the stablecoin per market order (document 3, rail `onchain-escrow`). A payer locks an amount for a
/// payee under an order ID; the platform's escrow operators release it to the payee (after the buyer confirmed) or
/// refund it to the payer. Each order's escrow is settled once: no double release, no refund after release.
contract PaymentEscrow is Admin {
    enum State {
        None,
        Locked,
        Released,
        Refunded
    }

    struct Escrow {
        address payer;
        address payee;
        uint256 amount;
        State state;
    }

    IEip3009Token public immutable token;
    mapping(address => bool) public isOperator;
    mapping(bytes32 => Escrow) private _escrows;

    event OperatorSet(address indexed operator, bool allowed);
    event Locked(bytes32 indexed orderId, address indexed payer, address indexed payee, uint256 amount);
    event Released(bytes32 indexed orderId, address indexed payee, uint256 amount);
    event Refunded(bytes32 indexed orderId, address indexed payer, uint256 amount);

    error NotOperator();
    error ZeroAmount();
    error AlreadyLocked(bytes32 orderId);
    error NotLocked(bytes32 orderId, State state);
    /// @dev A signed deposit must name this order and payee in its nonce (see lockNonce), so it cannot be redirected.
    error AuthorizationNotForThisOrder();

    modifier onlyOperator() {
        if (!isOperator[msg.sender]) revert NotOperator();
        _;
    }

    constructor(IEip3009Token token_) {
        if (address(token_) == address(0)) revert ZeroAddress();
        token = token_;
    }

    function setOperator(address operator, bool allowed) external onlyAdmin {
        if (operator == address(0)) revert ZeroAddress();
        isOperator[operator] = allowed;
        emit OperatorSet(operator, allowed);
    }

    function getEscrow(bytes32 orderId) external view returns (Escrow memory) {
        return _escrows[orderId];
    }

    /// @notice The EIP-3009 nonce a payer signs for lockWithAuthorization of this order and payee.
    function lockNonce(bytes32 orderId, address payee) public view returns (bytes32) {
        return keccak256(abi.encode(address(this), orderId, payee));
    }

    /// @notice The payer (msg.sender) locks `amount` it approved to this contract.
    function lock(bytes32 orderId, address payee, uint256 amount) external {
        _open(orderId, msg.sender, payee, amount);
        _pull(msg.sender, amount);
    }

    /// @notice An operator locks `amount` the payer approved to this contract.
    function lockFrom(bytes32 orderId, address payer, address payee, uint256 amount) external onlyOperator {
        _open(orderId, payer, payee, amount);
        _pull(payer, amount);
    }

    /// @notice Locks with the payer's signed EIP-3009 ReceiveWithAuthorization to this contract, nonce = lockNonce.
    function lockWithAuthorization(
        bytes32 orderId,
        address payee,
        address payer,
        uint256 amount,
        uint256 validAfter,
        uint256 validBefore,
        bytes memory signature
    ) external {
        _open(orderId, payer, payee, amount);
        token.receiveWithAuthorization(
            payer, address(this), amount, validAfter, validBefore, lockNonce(orderId, payee), signature
        );
    }

    function release(bytes32 orderId) external onlyOperator {
        Escrow storage escrow = _settle(orderId, State.Released);
        emit Released(orderId, escrow.payee, escrow.amount);
        _send(escrow.payee, escrow.amount);
    }

    function refund(bytes32 orderId) external onlyOperator {
        Escrow storage escrow = _settle(orderId, State.Refunded);
        emit Refunded(orderId, escrow.payer, escrow.amount);
        _send(escrow.payer, escrow.amount);
    }

    function _open(bytes32 orderId, address payer, address payee, uint256 amount) private {
        if (amount == 0) revert ZeroAmount();
        if (payer == address(0) || payee == address(0)) revert ZeroAddress();
        if (_escrows[orderId].state != State.None) revert AlreadyLocked(orderId);
        _escrows[orderId] = Escrow(payer, payee, amount, State.Locked);
        emit Locked(orderId, payer, payee, amount);
    }

    function _settle(bytes32 orderId, State next) private returns (Escrow storage escrow) {
        escrow = _escrows[orderId];
        if (escrow.state != State.Locked) revert NotLocked(orderId, escrow.state);
        escrow.state = next;
    }

    function _pull(address payer, uint256 amount) private {
        require(token.transferFrom(payer, address(this), amount));
    }

    function _send(address to, uint256 amount) private {
        require(token.transfer(to, amount));
    }
}
